import { COLUMNS } from './columns.js';

/** The README's output schema table, in Markdown, generated from COLUMNS and their types' `readers`. */
export function schemaTableMarkdown(): string {
  const lines = ['| column | Arrow / Parquet | DuckDB | pandas (`dtype_backend="numpy_nullable"`) | meaning |', '|---|---|---|---|---|'];
  for (const c of COLUMNS) {
    const t = c.type.readers;
    lines.push(`| \`${c.name}\` | ${t.arrow} | ${t.duckdb} | ${t.pandas} | ${c.doc.replace(/\|/g, '\\|')} |`);
  }
  return lines.join('\n');
}
