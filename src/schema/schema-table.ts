import { COLUMNS, type ColumnKind } from './columns.js';

/** How each column kind appears in each reader: the README's type columns. */
export const KIND_TYPES: Record<ColumnKind, { arrow: string; duckdb: string; pandas: string; csv: string }> = {
  int64: { arrow: 'int64', duckdb: 'BIGINT', pandas: 'Int64', csv: 'integer' },
  float64: { arrow: 'float64', duckdb: 'DOUBLE', pandas: 'Float64', csv: 'number, shortest round-trip form' },
  boolean: { arrow: 'bool', duckdb: 'BOOLEAN', pandas: 'boolean', csv: '`true` / `false`' },
  timestamp: { arrow: 'timestamp[us, tz=UTC]', duckdb: 'TIMESTAMP WITH TIME ZONE', pandas: 'datetime64[us, UTC]', csv: '`2016-01-21T17:21:57.860138Z`' },
  string: { arrow: 'string', duckdb: 'VARCHAR', pandas: 'string', csv: 'text' },
  category: { arrow: 'dictionary<int32, string>', duckdb: 'VARCHAR', pandas: 'category', csv: 'text' },
  json: { arrow: 'string (JSON)', duckdb: 'VARCHAR (cast to JSON)', pandas: 'string', csv: 'JSON text' },
};

/** The README's output schema table, in Markdown, generated from COLUMNS. */
export function schemaTableMarkdown(): string {
  const lines = ['| column | Arrow / Parquet | DuckDB | pandas (`dtype_backend="numpy_nullable"`) | meaning |', '|---|---|---|---|---|'];
  for (const c of COLUMNS) {
    const t = KIND_TYPES[c.kind];
    lines.push(`| \`${c.name}\` | ${t.arrow} | ${t.duckdb} | ${t.pandas} | ${c.doc.replace(/\|/g, '\\|')} |`);
  }
  return lines.join('\n');
}
