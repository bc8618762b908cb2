/** A SQL string literal for DuckDB: `'…'` with quotes doubled. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
