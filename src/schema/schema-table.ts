/** The Markdown schema tables of docs/schema.md, generated from the column definitions. */
import { IMAGES } from './columns.js';
import type { Table } from './table.js';

/** The schema table of `table` (default the images) for docs/schema.md, in Markdown, from its types' `readers`. */
export function schemaTableMarkdown(table: Table = IMAGES): string {
  const lines = [
    '| column | Arrow / Parquet | DuckDB | pandas (`dtype_backend="numpy_nullable"`) | meaning |',
    '|---|---|---|---|---|',
  ];
  for (const c of table.columns) {
    const t = c.type.readers;
    lines.push(`| \`${c.name}\` | ${t.arrow} | ${t.duckdb} | ${t.pandas} | ${c.doc.replace(/\|/g, '\\|')} |`);
  }
  return lines.join('\n');
}
