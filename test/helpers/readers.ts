/**
 * Shared pieces of the tests that read outputs back: temporary folders, DuckDB, value-by-value comparison.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { expect } from 'vitest';
import { COLUMNS } from '../../src/schema/columns.js';
import type { Row } from '../../src/schema/row.js';
import type { SinkResult } from '../../src/load/sink-result.js';

/**
 * The pandas dtype load.py must give a column of each kind but timestamps (whose dtype names the time zone), as the
 * tests expect it, stated once.
 */
export const PANDAS_DTYPES: Readonly<Record<string, string>> = {
  int64: 'Int64',
  float64: 'Float64',
  boolean: 'boolean',
  string: 'string',
  json: 'string',
  category: 'category',
};

/** A fresh temporary folder. */
export function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'img-etl-load-'));
}

/** Removes a temporary folder. */
export function removeDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}

/** Names in a folder, sorted. */
export async function listDir(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

/** An in-memory DuckDB connection. */
export async function openDuckDB(): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:');
  return instance.connect();
}

/** Runs `sql` and returns its rows as plain JS objects. */
export async function query(connection: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowObjectsJS();
}

/** SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** A select list that reads every column exactly: timestamps as epoch microseconds. */
export function exactSelectList(): string {
  return COLUMNS.map((c) =>
    c.type.kind === 'timestamp' ? `epoch_us("${c.name}") AS "${c.name}"` : `"${c.name}"`,
  ).join(', ');
}

/** The value DuckDB's JS API gives back for a fixture value: BIGINT as bigint, the rest as is. */
export function duckValue(kind: string, v: unknown): unknown {
  if (v === null) return null;
  if (kind === 'int64') return BigInt(v as number);
  return v;
}

/** Compares rows read back with the fixture rows, value by value, -0 included (Object.is). */
export function expectSameRows(
  actual: Record<string, unknown>[],
  expected: Row[],
  map: (kind: string, v: unknown) => unknown = duckValue,
): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    for (const column of COLUMNS) {
      const want = map(column.type.kind, expected[i]![column.name]);
      const got = actual[i]![column.name];
      if (!Object.is(got, want)) {
        throw new Error(
          `row ${i} column ${column.name}: got ${String(got)} (${typeof got}${Object.is(got, -0) ? ', -0' : ''}), ` +
            `want ${String(want)} (${typeof want}${Object.is(want, -0) ? ', -0' : ''})`,
        );
      }
    }
  }
}

/** Checks a SinkResult's bytes and sha256 against the file on disk. */
export async function expectResultMatchesFile(result: SinkResult): Promise<void> {
  const bytes = await readFile(result.path);
  expect(result.bytes).toBe(bytes.byteLength);
  expect(result.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
}
