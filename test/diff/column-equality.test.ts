import { describe, expect, it } from 'vitest';
import {
  DateDay,
  Dictionary,
  Float32,
  Int16,
  Int32,
  Int64,
  Int8,
  TimestampMillisecond,
  TimestampNanosecond,
  Utf8,
  makeData,
  vectorFromArray,
  type Data,
  type DataType,
} from 'apache-arrow';
import { columnEquality, valueFamily } from '../../src/diff/column-equality.js';
import { bool, category, columnData, float64, int64, timestamp, utf8, type ColumnValues } from './sides.js';

/** For each pair of positions, whether the two columns hold equal values there. */
function equalities(a: ColumnValues, b: ColumnValues): boolean[] {
  const x = columnData(a);
  const y = columnData(b);
  return equalitiesOf(x, y);
}

function equalitiesOf(x: Data, y: Data): boolean[] {
  const equal = columnEquality(x.type, y.type);
  if (equal === undefined) throw new Error(`test: ${String(x.type)} and ${String(y.type)} are not comparable`);
  return Array.from({ length: x.length }, (_, i) => equal(x, i, y, i));
}

describe('columnEquality', () => {
  it('floats: Object.is, so NaN equals NaN and -0 differs from +0; null equals only null', () => {
    expect(
      equalities(
        float64([NaN, -0, 0, -0, 0.1 + 0.2, 1.5, null, null, 5e-324]),
        float64([NaN, 0, 0, -0, 0.3, 1.5, null, 0, 5e-324]),
      ),
    ).toEqual([true, false, true, true, false, true, true, false, true]);
  });

  it('float32 against float64 compares the value (float32 widens exactly)', () => {
    const f32 = vectorFromArray([0.5, 0.1], new Float32()).data[0]!;
    const f64 = columnData(float64([0.5, 0.1]));
    expect(equalitiesOf(f32, f64)).toEqual([true, false]); // 0.1 as float32 is not 0.1
  });

  it('int64: exact beyond 2^53, no trip through a float; null against 0 differs', () => {
    const big = 2n ** 53n;
    expect(
      equalities(
        int64([big, big + 1n, -(2n ** 63n), 0, null, null]),
        int64([big + 1n, big + 1n, -(2n ** 63n), null, 0, null]),
      ),
    ).toEqual([false, true, true, false, false, true]);
  });

  it('integers of different widths compare by value', () => {
    const small = vectorFromArray([1, -2, 300, null], new Int16()).data[0]!;
    expect(equalitiesOf(small, columnData(int64([1n, -2n, 301n, null])))).toEqual([true, true, false, true]);
    const tiny = vectorFromArray([7], new Int8()).data[0]!;
    const medium = vectorFromArray([7], new Int32()).data[0]!;
    expect(equalitiesOf(tiny, medium)).toEqual([true]);
  });

  it('timestamps: exact microseconds, before 1970 too', () => {
    const t = 1453396917860138n;
    expect(
      equalities(
        timestamp([t, t, -1n, -86_400_000_001n, null, 0n]),
        timestamp([t + 1n, t, -1n, -86_400_000_000n, null, null]),
      ),
    ).toEqual([false, true, true, false, true, false]);
  });

  it('timestamps of different units compare as instants', () => {
    const ms = timestamp([1_000n, 1_000n, -5n], new TimestampMillisecond('UTC'));
    expect(equalities(ms, timestamp([1_000_000n, 1_000_001n, -5_000n]))).toEqual([true, false, true]);
    const ns = timestamp([1_000_000_001n, 1_000_000_000n], new TimestampNanosecond('UTC'));
    expect(equalities(timestamp([1_000_000n, 1_000_000n]), ns)).toEqual([false, true]);
  });

  it('strings: the exact UTF-8 text; empty differs from null', () => {
    expect(
      equalities(
        utf8(['abc', 'abc', 'héllo', '🧠', '', '', null, 'a"b,c\n']),
        utf8(['abc', 'abd', 'héllo', '🧠 ', '', null, null, 'a"b,c\n']),
      ),
    ).toEqual([true, false, true, false, true, false, true, true]);
  });

  it('categories: by text, whatever the dictionary order or encoding on each side', () => {
    const a = category(['T map', 'Z map', null, 'ROI/mask', 'T map']);
    // 'Z map' gets key 0 here, 'T map' got key 0 there
    const b = category(['Z map', 'Z map', null, 'ROI/mask', 'Z map']);
    expect(equalities(a, b)).toEqual([false, true, true, true, false]);
    expect(equalities(a, utf8(['T map', 'Z map', null, 'ROI/mask', 'parcellation']))).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(equalities(utf8(['T map', null]), category(['T map', 'T map']))).toEqual([true, false]);
  });

  it('categories with a dictionary spread over several chunks (delta dictionaries) resolve the right chunk', () => {
    const dictionary = vectorFromArray(['a', 'b'], new Utf8()).concat(vectorFromArray(['c', 'd'], new Utf8()));
    const x = makeData({
      type: new Dictionary(new Utf8(), new Int32()),
      length: 3,
      nullCount: 0,
      data: Int32Array.of(3, 0, 2),
      dictionary,
    });
    expect(x.dictionary!.data.length).toBe(2);
    expect(equalitiesOf(x, columnData(utf8(['d', 'a', 'd'])))).toEqual([true, true, false]);
  });

  it('booleans: the bit; null differs from false', () => {
    expect(
      equalities(
        bool([true, false, null, null, false, true, true, false, true]),
        bool([true, true, null, false, false, true, false, false, true]),
      ),
    ).toEqual([true, false, true, false, true, true, false, true, true]);
  });

  it('reads sliced column data at the right rows (offsets of values, validity and booleans)', () => {
    const cases: [ColumnValues, ColumnValues][] = [
      [int64([9, 1, null, 3, 4, 5, 6, 7, 8, 10]), int64([1, null, 3])],
      [float64([9, 1.5, null, -0, 4, 5, 6, 7, 8, 10]), float64([1.5, null, -0])],
      [bool([false, true, null, false, true, true, true, true, true, false]), bool([true, null, false])],
      [utf8(['x', 'one', null, 'three', 'y', 'z', 'w', 'v', 'u', 't']), utf8(['one', null, 'three'])],
      [category(['x', 'one', null, 'three', 'y', 'z', 'w', 'v', 'u', 't']), utf8(['one', null, 'three'])],
      [timestamp([9n, 1n, null, 3n, 4n, 5n, 6n, 7n, 8n, 10n]), timestamp([1n, null, 3n])],
    ];
    for (const [long, short] of cases) {
      const sliced = columnData(long).slice(1, 3);
      const plain = columnData(short);
      expect(equalitiesOf(sliced, plain), String(long.type)).toEqual([true, true, true]);
      const shifted = columnData(long).slice(2, 3);
      expect(equalitiesOf(shifted, plain), String(long.type)).toEqual([false, false, false]);
    }
  });

  it('knows which types it compares', () => {
    const families = (types: DataType[]) => types.map((t) => valueFamily(t));
    expect(
      families([
        new Int64(),
        new Float32(),
        new Utf8(),
        new Dictionary(new Utf8(), new Int32()),
        new TimestampMillisecond(),
      ]),
    ).toEqual(['integer', 'float', 'string', 'string', 'timestamp']);
    expect(valueFamily(new DateDay())).toBeUndefined();
    expect(columnEquality(new Int64(), new Utf8())).toBeUndefined();
  });
});
