/**
 * What the output must hold for a served record, written independently of src/transform so that a bug
 * there cannot hide itself: the test states the rules, the tool must meet them.
 */
import { expect } from 'vitest';
import { COLUMNS, type ColumnKind } from '../../src/schema/columns.js';
import { servedExtra } from './served-members.js';

/** An expected output value: bigint for int64 and timestamps (microseconds UTC), number, boolean, string, or null. */
export type Expected = bigint | number | boolean | string | null;

const SENTINELS: Record<string, string> = {
  cognitive_paradigm_cogatlas: 'None / Other',
  cognitive_paradigm_cogatlas_id: 'None',
  cognitive_contrast_cogatlas: 'None / Other',
  cognitive_contrast_cogatlas_id: 'None',
};

/** Microseconds since the epoch of an ISO 8601 text with an offset, by way of Date.parse plus the fraction digits. */
export function epochMicros(text: string): bigint {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new Error(`test: bad timestamp ${text}`);
  const fraction = /:\d{2}\.(\d+)/.exec(text)?.[1] ?? '';
  return BigInt(Math.floor(ms / 1000)) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
}

/**
 * The expected output row of a served record, by column name; `served`, the record's JSON text, gives `extra` each
 * value as served (without it, `extra` is the parsed values' JSON text: `24` for a served `24.0`).
 */
export function expectedRow(record: Record<string, unknown>, served?: string): Record<string, Expected> {
  const row: Record<string, Expected> = {};
  for (const column of COLUMNS) {
    if (column.origin === 'derived') continue;
    const value = record[column.name];
    if (value === undefined || value === null || value === '') row[column.name] = null;
    else if (SENTINELS[column.name] === value) row[column.name] = null;
    else if (column.type.kind === 'timestamp') row[column.name] = epochMicros(value as string);
    else if (column.type.kind === 'int64') row[column.name] = BigInt(value as number);
    else row[column.name] = value as Expected;
  }
  const pair = (name: string, id: string): Expected =>
    name in record || id in record ? record[name] === 'None / Other' || record[id] === 'None' : null;
  row['cognitive_paradigm_is_other'] = pair('cognitive_paradigm_cogatlas', 'cognitive_paradigm_cogatlas_id');
  row['cognitive_contrast_is_other'] = pair('cognitive_contrast_cogatlas', 'cognitive_contrast_cogatlas_id');
  const known = new Set(COLUMNS.map((c) => c.name));
  const extra = Object.fromEntries(Object.entries(record).filter(([k]) => !known.has(k)));
  if (served !== undefined) row['extra'] = servedExtra(served, known);
  else row['extra'] = Object.keys(extra).length === 0 ? null : JSON.stringify(extra);
  return row;
}

/** The ISO 8601 UTC text with six fraction digits that CSV holds for a timestamp (`+010000-…` past year 9999). */
export function isoMicros(micros: bigint): string {
  const seconds = micros / 1_000_000n - (micros % 1_000_000n < 0n ? 1n : 0n);
  const fraction = micros - seconds * 1_000_000n;
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, -5)}.${String(fraction).padStart(6, '0')}Z`;
}

/**
 * Compares rows read back (keyed by id) with expected rows, every column, naming the first difference; `convert` maps a
 * reader's value to the expected form.
 */
export function expectRowsMatch(
  rows: Record<string, unknown>[],
  expected: Map<bigint, Record<string, Expected>>,
  convert: (kind: ColumnKind, value: unknown) => unknown = (_, v) => v,
): void {
  expect(rows.length).toBe(expected.size);
  for (const row of rows) {
    const id = BigInt(row['id'] as bigint | number);
    const want = expected.get(id);
    if (want === undefined) throw new Error(`row with id ${id} was never served`);
    for (const column of COLUMNS) {
      const got = convert(column.type.kind, row[column.name]);
      if (!Object.is(got, want[column.name])) {
        throw new Error(
          `id ${id} column ${column.name}: got ${String(got)} (${typeof got}), want ` +
            `${String(want[column.name])} (${typeof want[column.name]})`,
        );
      }
    }
  }
}
