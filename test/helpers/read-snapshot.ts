import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { COLUMNS } from '../../src/schema/columns.js';
import type { RunningService } from '../../src/service/index.js';
import { arrowValues } from './arrow-values.js';
import { expectedRow, type Expected } from './expected-row.js';
import { openDuckDB, query, sqlString } from './readers.js';

/** Every row of a snapshot's images.parquet, read by DuckDB, timestamps as epoch microseconds, in file order. */
export async function readParquetRows(outDir: string): Promise<Record<string, unknown>[]> {
  const db = await openDuckDB();
  const select = COLUMNS.map((c) =>
    c.type.kind === 'timestamp' ? `epoch_us("${c.name}") AS "${c.name}"` : `"${c.name}"`,
  ).join(', ');
  return query(db, `SELECT ${select} FROM read_parquet(${sqlString(join(outDir, 'images.parquet'))})`);
}

/** Every row of a snapshot's images.arrow, read by apache-arrow, timestamps as bigint microseconds, in file order. */
export async function readArrowRows(outDir: string): Promise<Record<string, unknown>[]> {
  const table = tableFromIPC(await readFile(join(outDir, 'images.arrow')));
  const columns = Object.fromEntries(COLUMNS.map((c) => [c.name, arrowValues(table.getChild(c.name)!)]));
  return Array.from({ length: table.numRows }, (_, i) =>
    Object.fromEntries(COLUMNS.map((c) => [c.name, columns[c.name]![i]])),
  );
}

/** The expected rows of the given ids as the service serves (or served) them, keyed by id. */
export function expectedRowsOf(service: RunningService, ids: Iterable<number>): Map<bigint, Record<string, Expected>> {
  const rows = new Map<bigint, Record<string, Expected>>();
  for (const id of ids) {
    const served = service.dataset.recordJson(id, service.url);
    rows.set(BigInt(id), expectedRow(JSON.parse(served) as Record<string, unknown>, served));
  }
  return rows;
}
