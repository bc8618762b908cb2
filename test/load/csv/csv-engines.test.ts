/**
 * The two CSV engines write the same bytes: img-etl's own formatter ('builtin') against csv-stringify, the reference,
 * on arbitrary rows (property tests) and on the load fixture, with formula neutralisation on and off; and they refuse
 * the same values with the same errors.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCsvHeader, formatCsvRows } from '../../../src/load/csv/csv-format.js';
import { stringifyCsvHeader, stringifyCsvRows } from '../../../src/load/csv/csv-stringify-format.js';
import { COLUMNS, type ColumnKind } from '../../../src/schema/columns.js';
import type { Row, RowValue } from '../../../src/schema/row.js';
import { fixtureBatches, TRICKY_STRINGS } from '../fixture-rows.js';

/** Characters that decide quoting and neutralisation, and some that must not. */
const TRICKY_CHARS = [
  ',',
  '"',
  '\r',
  '\n',
  '=',
  '+',
  '-',
  '@',
  '\t',
  '\uFF1D',
  '\uFF0B',
  '\uFF0D',
  '\uFF20',
  ' ',
  "'",
  ';',
  '\\',
  'a',
  'é',
  '日',
  '🧠',
  '\u2028',
  '\u0000',
  '\uD83E',
  '\uDDE0',
]; // the last two: halves of a surrogate pair, alone or together

const text = fc.oneof(
  fc.string({ unit: fc.constantFrom(...TRICKY_CHARS), maxLength: 8 }),
  fc
    .tuple(fc.constantFrom(...TRICKY_CHARS), fc.string({ unit: 'grapheme', maxLength: 20 }))
    .map(([first, rest]) => first + rest),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(...TRICKY_STRINGS),
);

/**
 * Microseconds: the epoch to 2^53 (where the builtin engine computes the text itself) and beyond it, before 1970, and
 * the edges.
 */
const timestamp = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 53n }),
  // a microsecond before a whole second, where a rounded n / 1e6 would land on the next one
  fc.bigInt({ min: 1n, max: 2n ** 53n / 1_000_000n }).map((s) => s * 1_000_000n - 1n),
  fc.bigInt({ min: -62_135_596_800_000_000n, max: 253_402_300_799_999_999n }), // years 1 to 9999
  // all of Date's range: years -271821 to 275760
  fc.bigInt({ min: -8_640_000_000_000_000_000n, max: 8_640_000_000_000_000_000n }),
  fc.constantFrom(
    0n,
    -1n,
    1n,
    999_999n,
    1_000_000n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 53n + 1n,
    253_402_300_799_999_999n,
    253_402_300_800_000_000n,
    -62_167_219_200_000_001n,
    951_782_400_000_000n,
    1_709_208_000_000_000n,
  ),
);

const VALUES: Record<ColumnKind, fc.Arbitrary<RowValue>> = {
  int64: fc.oneof(
    fc.maxSafeInteger(),
    fc.integer(),
    fc.constantFrom(0, -0, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
  ),
  float64: fc.oneof(
    fc.double(),
    fc.integer(),
    fc.constantFrom(-0, 0, Number.NaN, Infinity, -Infinity, 1e21, 1e-7, 5e-324, -1.5),
  ),
  boolean: fc.boolean(),
  timestamp,
  string: text,
  category: text,
  json: fc.oneof(
    text,
    fc.jsonValue().map((v) => JSON.stringify(v)),
  ),
};

/** Asserts that the builtin engine's bytes are csv-stringify's text in UTF-8 (as the sink writes it). */
function expectSameBytes(builtin: Uint8Array, reference: string): void {
  const expected = Buffer.from(reference, 'utf8');
  if (!expected.equals(builtin)) expect(Buffer.from(builtin).toString('utf8')).toBe(reference); // shows where they part
  expect(expected.equals(builtin)).toBe(true);
}

/** A row with every column: null about one time in four. */
const row: fc.Arbitrary<Row> = fc.record(
  Object.fromEntries(COLUMNS.map((c) => [c.name, fc.option(VALUES[c.type.kind], { nil: null, freq: 3 })])),
);

describe('the builtin CSV engine', () => {
  for (const neutraliseFormulas of [true, false]) {
    describe(`with neutraliseFormulas ${neutraliseFormulas}`, () => {
      it('writes the header as csv-stringify does', () => {
        expect(formatCsvHeader(neutraliseFormulas)).toBe(stringifyCsvHeader(neutraliseFormulas));
      });

      it('writes exactly the bytes csv-stringify writes, for any rows (property)', () => {
        fc.assert(
          fc.property(fc.array(row, { maxLength: 5 }), (rows) => {
            expectSameBytes(
              formatCsvRows(rows, 'u', neutraliseFormulas),
              stringifyCsvRows(rows, 'u', neutraliseFormulas),
            );
          }),
          { numRuns: 1500 },
        );
      });

      it('writes exactly the bytes csv-stringify writes for any single text or timestamp (property)', () => {
        const template = Object.fromEntries(COLUMNS.map((c) => [c.name, null])) as Row;
        fc.assert(
          fc.property(text, timestamp, (value, micros) => {
            const rows = [{ ...template, name: value, add_date: micros }];
            expectSameBytes(
              formatCsvRows(rows, 'u', neutraliseFormulas),
              stringifyCsvRows(rows, 'u', neutraliseFormulas),
            );
          }),
          { numRuns: 5000 },
        );
      });

      it('writes exactly the bytes csv-stringify writes for the load fixture', () => {
        for (const batch of fixtureBatches()) {
          expectSameBytes(
            formatCsvRows(batch.rows, batch.source.url, neutraliseFormulas),
            stringifyCsvRows(batch.rows, batch.source.url, neutraliseFormulas),
          );
        }
      });
    });
  }

  it('writes a timestamp outside years 0000-9999 with its seconds and fraction, never formula-neutralised', () => {
    const row = Object.fromEntries(COLUMNS.map((c) => [c.name, null])) as Row;
    const rows = [{ ...row, add_date: 253_402_351_199_999_999n, modify_date: -62_167_222_800_000_000n }];
    const texts: Record<string, string> = {
      add_date: '+010000-01-01T13:59:59.999999Z',
      modify_date: '-000001-12-31T23:00:00.000000Z',
    };
    const fields = COLUMNS.map((c) => texts[c.name] ?? '');
    for (const neutraliseFormulas of [true, false]) {
      expect(Buffer.from(formatCsvRows(rows, 'u', neutraliseFormulas)).toString('utf8')).toBe(`${fields.join(',')}\n`);
      expect(stringifyCsvRows(rows, 'u', neutraliseFormulas)).toBe(`${fields.join(',')}\n`);
    }
  });

  it('writes nothing for no rows', () => {
    expect(formatCsvRows([], 'u', true)).toHaveLength(0);
    expect(stringifyCsvRows([], 'u', true)).toBe('');
  });

  it('refuses the values csv-stringify refuses, with the same error (property)', () => {
    const bad: Record<ColumnKind, fc.Arbitrary<unknown>> = {
      int64: fc.constantFrom(1.5, Number.NaN, Infinity, 2 ** 53, '1', true, 1n, undefined),
      float64: fc.constantFrom('1.5', true, 1n, undefined),
      boolean: fc.constantFrom('true', 1, 0n, undefined),
      timestamp: fc.constantFrom(1453396917860, '2016-01-21T17:21:57Z', true, undefined),
      string: fc.constantFrom(1, true, 1n, undefined),
      category: fc.constantFrom(0, false, undefined),
      json: fc.constantFrom(2, 2n, undefined),
    };
    const column = fc.constantFrom(...COLUMNS);
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 3 }),
        column.chain((c) => fc.tuple(fc.constant(c), bad[c.type.kind])),
        fc.nat(),
        (rows, [c, value], at) => {
          const broken = rows.map((r) => ({ ...r }));
          const target = broken[at % broken.length]!;
          if (value === undefined) delete target[c.name];
          else target[c.name] = value as RowValue;
          const error = (format: (rows: Row[], place: string, neutralise: boolean) => unknown) => {
            try {
              format(broken, 'http://x/page', true);
            } catch (e) {
              return { name: (e as Error).name, code: (e as { code?: string }).code, message: (e as Error).message };
            }
            return undefined;
          };
          const expected = error(stringifyCsvRows);
          expect(expected?.code).toBe('LOAD_INVALID_VALUE');
          expect(error(formatCsvRows)).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
