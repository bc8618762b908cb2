import { COLUMNS, KNOWN_KEYS } from '../schema/columns.js';
import type { Row, RowBatch, RowValue } from '../schema/row.js';
import { SENTINEL_ID, SENTINEL_NAME, SENTINEL_PAIRS } from '../schema/sentinels.js';
import { parseTimestampMicros } from '../schema/timestamp.js';
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

const SENTINEL_BY_COLUMN = new Map<string, string>();
for (const pair of SENTINEL_PAIRS) {
  SENTINEL_BY_COLUMN.set(pair.nameColumn, SENTINEL_NAME);
  SENTINEL_BY_COLUMN.set(pair.idColumn, SENTINEL_ID);
}

/** What normalisation does to each record column, decided once from COLUMNS (this runs for every value). */
const STEPS = COLUMNS.filter((c) => c.origin === 'record').map((c) => ({
  name: c.name,
  text: c.kind === 'string' || c.kind === 'category',
  timestamp: c.kind === 'timestamp',
  sentinel: SENTINEL_BY_COLUMN.get(c.name),
}));

/** Turns validated records into output rows: sentinels and empty strings to null (counted), timestamps to UTC microseconds, unknown keys to `extra`. */
export async function* normalise(source: AsyncIterable<ValidBatch>, counts: NormalisationCounts = emptyNormalisationCounts()): AsyncIterable<RowBatch> {
  for await (const batch of source) {
    yield { source: batch.source, rows: batch.records.map((r) => normaliseRecord(r, counts)), rejects: batch.rejects };
  }
}

/** Normalises one validated record into a row, adding what it replaced to `counts`. */
export function normaliseRecord(record: Record<string, unknown>, counts: NormalisationCounts): Row {
  const row: Row = {};
  for (let i = 0; i < STEPS.length; i++) {
    const step = STEPS[i]!;
    let value = record[step.name] as RowValue | undefined;
    if (value === undefined) value = null;
    else if (typeof value === 'string') {
      if (step.text) {
        if (value === '') {
          counts.emptyToNull[step.name] = (counts.emptyToNull[step.name] ?? 0) + 1;
          value = null;
        } else if (value === step.sentinel) {
          counts.sentinelToNull[step.name] = (counts.sentinelToNull[step.name] ?? 0) + 1;
          value = null;
        }
      } else if (step.timestamp) {
        value = parseTimestampMicros(value) ?? null; // validate() guarantees it parses
      }
    }
    row[step.name] = value;
  }
  for (const pair of SENTINEL_PAIRS) {
    const present = pair.nameColumn in record || pair.idColumn in record;
    row[pair.flagColumn] = present ? record[pair.nameColumn] === SENTINEL_NAME || record[pair.idColumn] === SENTINEL_ID : null;
  }
  row['extra'] = extraJson(record);
  if (row['extra'] !== null) counts.recordsWithExtra++;
  return row;
}

function extraJson(record: Record<string, unknown>): string | null {
  let extra: Record<string, unknown> | undefined;
  for (const key in record) {
    if (KNOWN_KEYS.has(key)) continue;
    (extra ??= {})[key] = record[key];
  }
  return extra === undefined ? null : JSON.stringify(extra);
}
