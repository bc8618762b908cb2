import { COLUMNS } from '../schema/columns.js';
import type { Row, RowBatch } from '../schema/row.js';
import { SENTINEL_ID, SENTINEL_NAME, SENTINEL_PAIRS } from '../schema/sentinels.js';
import { parseTimestampMicros } from '../schema/timestamp.js';
import { extraJson } from './extra-json.js';
import type { ValidBatch } from './validate.js';

/** How many values normalisation replaced, per column: the audit trail the manifest carries. */
export interface NormalisationCounts {
  /** `"None / Other"` and `"None"` sentinels turned into null, per column. */
  sentinelToNull: Record<string, number>;
  /** Empty strings turned into null, per column. */
  emptyToNull: Record<string, number>;
  /** Records that had keys the schema does not know (kept in `extra`). */
  recordsWithExtra: number;
}

/** Fresh, all-zero counts. */
export function emptyNormalisationCounts(): NormalisationCounts {
  return { sentinelToNull: {}, emptyToNull: {}, recordsWithExtra: 0 };
}

/** Turns validated records into output rows: sentinels and empty strings to null (counted), timestamps to UTC microseconds, unknown keys to `extra`. */
export async function* normalise(source: AsyncIterable<ValidBatch>, counts: NormalisationCounts = emptyNormalisationCounts()): AsyncIterable<RowBatch> {
  for await (const batch of source) {
    yield { source: batch.source, rows: normaliseRecords(batch.records, counts), rejects: batch.rejects };
  }
}

/** Normalises validated records into rows, adding what it replaced to `counts`. */
export function normaliseRecords(records: readonly Record<string, unknown>[], counts: NormalisationCounts): Row[] {
  const rows = new Array<Row>(records.length);
  for (let i = 0; i < records.length; i++) rows[i] = normaliseRecord(records[i]!, counts);
  return rows;
}

/** Normalises one validated record into a row, adding what it replaced to `counts`. */
export function normaliseRecord(record: Record<string, unknown>, counts: NormalisationCounts): Row {
  const row = NORMALISE_RECORD(record, counts, parseTimestampMicros);
  if (row['extra'] !== null) counts.recordsWithExtra++;
  return row;
}

type RecordNormaliser = (record: Record<string, unknown>, counts: NormalisationCounts, parseTimestamp: typeof parseTimestampMicros) => Row;

/**
 * The per-record normaliser, generated once from COLUMNS: a straight-line function that reads each known key by
 * name and returns the row as one object literal in COLUMNS order. Every row then has the same shape (fast
 * property access in every later stage), and no per-column lookups run per record, which costs a third of the
 * generic loop's time. What each column gets:
 * - string and category: `""` → null (counted in `emptyToNull`); the column's sentinel, if it has one, → null (counted in `sentinelToNull`);
 * - timestamp: the text → bigint UTC microseconds (validation guarantees it parses);
 * - other record columns: as served; a missing key → null;
 * - the sentinel flags: whether the pair holds its sentinel, null when the record has neither key;
 * - extra: the unknown keys as JSON (extra-json.ts), found by comparing the record's key count with the known keys
 *   it holds.
 */
const NORMALISE_RECORD: RecordNormaliser = (() => {
  const sentinelOf = new Map<string, string>();
  for (const pair of SENTINEL_PAIRS) {
    sentinelOf.set(pair.nameColumn, SENTINEL_NAME);
    sentinelOf.set(pair.idColumn, SENTINEL_ID);
  }
  const flagOf = new Map(SENTINEL_PAIRS.map((p) => [p.flagColumn, p]));
  const key = (name: string) => `r[${JSON.stringify(name)}]`;
  const count = (field: string, name: string) => `c.${field}[${JSON.stringify(name)}] = (c.${field}[${JSON.stringify(name)}] ?? 0) + 1;`;
  const lines: string[] = ['let known = 0;'];
  const fields: string[] = [];
  COLUMNS.forEach((column, i) => {
    const v = `v${i}`;
    fields.push(`${JSON.stringify(column.name)}: ${v}`);
    if (column.origin === 'record') {
      lines.push(`let ${v} = ${key(column.name)};`, `if (${v} === undefined) ${v} = null; else known++;`);
      if (column.kind === 'string' || column.kind === 'category') {
        const sentinel = sentinelOf.get(column.name);
        lines.push(`if (${v} === '') { ${count('emptyToNull', column.name)} ${v} = null; }`);
        if (sentinel !== undefined) lines.push(`else if (${v} === ${JSON.stringify(sentinel)}) { ${count('sentinelToNull', column.name)} ${v} = null; }`);
      } else if (column.kind === 'timestamp') {
        lines.push(`if (typeof ${v} === 'string') ${v} = p(${v}) ?? null;`);
      }
      return;
    }
    const pair = flagOf.get(column.name);
    if (pair !== undefined) {
      const [name, id] = [key(pair.nameColumn), key(pair.idColumn)];
      lines.push(`const ${v} = ${name} !== undefined || ${id} !== undefined ? ${name} === ${JSON.stringify(SENTINEL_NAME)} || ${id} === ${JSON.stringify(SENTINEL_ID)} : null;`);
    } else if (column.name === 'extra') {
      lines.push(`let n = 0; for (const _ in r) n++;`, `const ${v} = n === known ? null : x(r);`);
    } else throw new Error(`normalise: no rule for derived column ${column.name}`);
  });
  lines.push(`return { ${fields.join(', ')} };`);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from COLUMNS only, once, at load
  const make = new Function('x', `return function normaliseRecord(r, c, p) {\n${lines.join('\n')}\n};`) as (x: typeof extraJson) => RecordNormaliser;
  return make(extraJson);
})();
