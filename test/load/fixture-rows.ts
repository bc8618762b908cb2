/**
 * Rows for the load tests: every column kind with its edge cases, spread over batches so that category values
 * first appear in later batches, with an empty batch among them.
 */
import type { ParquetEngine } from '../../src/load/parquet/to-parquet.js';
import { COLUMNS } from '../../src/schema/columns.js';
import type { Reject, Row, RowBatch, RowValue } from '../../src/schema/row.js';

/** Strings that stress quoting, encoding and formula neutralisation. */
export const TRICKY_STRINGS = [
  'héllo wörld',
  '日本語のテキスト',
  'emoji 🧠😀 and a flag 🇩🇪',
  'say "hi"',
  'a,b,c',
  'line1\nline2',
  'carriage\rreturn',
  'crlf\r\nend',
  '=SUM(A1:A9)',
  '+1 555',
  '-2 dashes',
  '@cmd',
  '\ttabbed',
  '\rleading cr',
  '\uFF1Dfullwidth equals',
  '',
  '  spaces  ',
  "'already quoted",
  '"',
  ',',
  'trailing backslash \\',
];

/** Floats whose text form must round-trip exactly. */
export const TRICKY_FLOATS = [
  1e-7,
  99.3518654951259,
  2.47195633810831,
  2.90527763451951,
  0.1 + 0.2,
  -0,
  0,
  1e21,
  5e-324,
  1.7976931348623157e308,
  -123.456,
  123456789.123456,
];

/** int64 values: beyond 2^31, zero, negative, the safe extremes. */
export const TRICKY_INTS = [
  2 ** 40 + 7,
  0,
  -5,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  2 ** 31,
  -(2 ** 31) - 1,
];

/** Timestamps in µs: microseconds kept, .000001, pre-1970, the epoch. */
export const TRICKY_TIMESTAMPS = [
  1453396917860138n,
  1n,
  -1n,
  0n,
  -86_400_000_001n,
  1530331621316444n,
  -631152000000000n,
];

/** Timestamps in µs for the parquetjs engine, which refuses instants before 1970: the epoch, past 2^53, year 9999. */
export const FROM_1970_TIMESTAMPS = [
  1453396917860138n,
  1n,
  0n,
  999_999n,
  1530331621316444n,
  2n ** 53n + 1n,
  253_402_300_799_999_999n,
];

/** Timestamps for the fixture, in µs. */
type Stamps = readonly bigint[];

/** The fixture's timestamps for a Parquet engine: the tricky ones, or from 1970 on for parquetjs. */
export function timestampsFor(engine: ParquetEngine): Stamps {
  return engine === 'parquetjs' ? FROM_1970_TIMESTAMPS : TRICKY_TIMESTAMPS;
}

/** Category values: the batch index where each first appears is part of the test. */
export const CATEGORY_VALUES = [
  ['T map', 'Z map'],
  ['T map', 'ROI/mask'],
  [],
  ['Z map', 'P map (given null hypothesis)', 'parcellation', '=formula category'],
];

function valueFor(kind: string, name: string, id: number, b: number, i: number, timestamps: Stamps): RowValue {
  const k = id + name.length;
  switch (kind) {
    case 'int64':
      return name === 'id' ? id : TRICKY_INTS[k % TRICKY_INTS.length]!;
    case 'float64':
      return TRICKY_FLOATS[k % TRICKY_FLOATS.length]!;
    case 'boolean':
      return k % 2 === 0;
    case 'timestamp':
      return timestamps[k % timestamps.length]!;
    case 'string':
      return name === 'url' ? `http://neurovault.org/images/${id}/` : TRICKY_STRINGS[k % TRICKY_STRINGS.length]!;
    case 'category': {
      const values = CATEGORY_VALUES[b]!;
      return values.length === 0 ? null : values[(i + name.length) % values.length]!;
    }
    case 'json':
      return k % 3 === 0
        ? null
        : JSON.stringify({ CIAS: k, data: [1, 'two', { three: 3 }], note: 'a "quoted", text\n' });
  }
  throw new Error(`unknown kind ${kind}`);
}

/** A row with a value for every column; `nulls` makes every value null (id too). */
export function makeRow(id: number, b: number, i: number, nulls = false, timestamps: Stamps = TRICKY_TIMESTAMPS): Row {
  const row: Row = {};
  for (const column of COLUMNS) {
    row[column.name] = nulls ? null : valueFor(column.type.kind, column.name, id, b, i, timestamps);
  }
  return row;
}

/** The fixture: four pages (the third one empty), an all-null row, every edge case, and two rejects. */
export function fixtureBatches(timestamps: Stamps = TRICKY_TIMESTAMPS): RowBatch[] {
  const batches: RowBatch[] = [];
  let id = 1;
  const sizes = [9, 12, 0, 15];
  for (let b = 0; b < sizes.length; b++) {
    const rows: Row[] = [];
    for (let i = 0; i < sizes[b]!; i++) rows.push(makeRow(id++, b, i, b === 1 && i === 3, timestamps));
    const rejects: Reject[] =
      b === 1
        ? [
            {
              url: `http://neurovault.org/api/images/?offset=${b}`,
              record: { id: 'x', name: 'bad "record"\n' },
              issues: [{ path: ['id'], message: 'expected number, received string' }],
            },
          ]
        : [];
    if (b === 3)
      rejects.push({
        url: 'http://neurovault.org/api/images/?offset=3',
        record: { id: 7, add_date: 'yesterday', extra: { ü: '🧠' } },
        issues: [{ path: ['add_date'], message: 'expected an ISO 8601 timestamp with a UTC offset' }],
      });
    batches.push({
      source: { url: `http://neurovault.org/api/images/?limit=100&offset=${b * 100}`, offset: b * 100 },
      rows,
      rejects,
    });
  }
  // Make sure every tricky value appears somewhere, whatever the modular spread above.
  const last = batches[3]!.rows;
  const textColumns = ['description', 'figure'];
  TRICKY_STRINGS.forEach((s, i) => (last[i % last.length]![textColumns[Math.floor(i / last.length)]!] = s));
  TRICKY_FLOATS.forEach((f, i) => (last[i % last.length]!['age'] = f));
  TRICKY_INTS.forEach((n, i) => (last[i % last.length]!['file_size'] = n));
  timestamps.forEach((t, i) => (last[i % last.length]!['add_date'] = t));
  return batches;
}

/** Every row of the fixture, in order. */
export function fixtureRows(timestamps: Stamps = TRICKY_TIMESTAMPS): Row[] {
  return fixtureBatches(timestamps).flatMap((b) => b.rows);
}

/** An async stream of the given items. */
export async function* streamOf<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}
