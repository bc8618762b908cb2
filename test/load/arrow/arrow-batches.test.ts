import { describe, expect, it } from 'vitest';
import { DataType, Type, type Dictionary, type RecordBatch } from 'apache-arrow';
import { COLUMNS } from '../../../src/schema/columns.js';
import { arrowSchema } from '../../../src/load/arrow/arrow-schema.js';
import { ArrowBatchBuilder, toArrowBatches, type LoadBatch } from '../../../src/load/arrow/arrow-batches.js';
import { LoadError } from '../../../src/text/load-error.js';
import { CATEGORY_VALUES, fixtureBatches, makeRow, streamOf } from '../fixture-rows.js';

async function collect(batches = fixtureBatches()): Promise<LoadBatch[]> {
  const out: LoadBatch[] = [];
  for await (const b of toArrowBatches(streamOf(batches))) out.push(b);
  return out;
}

/** The value a vector holds at i, exactly: raw microseconds for timestamps, numbers for Int64. */
function cell(batch: RecordBatch, name: string, i: number): unknown {
  const vector = batch.getChild(name)!;
  if (!vector.isValid(i)) return null;
  const data = vector.data[0]!;
  if (DataType.isTimestamp(data.type)) return (data.values as BigInt64Array)[data.offset + i];
  const v: unknown = vector.get(i);
  return typeof v === 'bigint' ? Number(v) : v;
}

describe('arrowSchema', () => {
  it('derives one nullable field per column with the mapped types and stable dictionary ids', () => {
    const schema = arrowSchema(new Map([['img-etl.schema_version', '1']]));
    expect(schema.fields.map((f) => f.name)).toEqual(COLUMNS.map((c) => c.name));
    expect(schema.metadata.get('img-etl.schema_version')).toBe('1');
    const expected: Record<string, Type> = {
      int64: Type.Int,
      float64: Type.Float,
      boolean: Type.Bool,
      timestamp: Type.Timestamp,
      string: Type.Utf8,
      json: Type.Utf8,
      category: Type.Dictionary,
    };
    COLUMNS.forEach((column, i) => {
      const field = schema.fields[i]!;
      expect(field.nullable).toBe(true);
      expect(field.type.typeId).toBe(expected[column.type.kind]);
      if (column.type.kind === 'int64') expect(field.type.toString()).toBe('Int64');
      if (column.type.kind === 'float64') expect(field.type.toString()).toBe('Float64');
      if (column.type.kind === 'timestamp') expect(field.type.toString()).toBe('Timestamp<MICROSECOND, UTC>');
      if (column.type.kind === 'category') {
        const type = field.type as Dictionary;
        expect(type.id).toBe(i);
        expect(type.indices.toString()).toBe('Int32');
        expect(String(type.dictionary)).toBe('Utf8');
      }
    });
    expect(arrowSchema().fields.map((f) => f.type.toString())).toEqual(schema.fields.map((f) => f.type.toString()));
  });
});

describe('toArrowBatches', () => {
  it('builds one batch per page holding exactly the rows, microseconds and -0 included', async () => {
    const pages = fixtureBatches();
    const batches = await collect(pages);
    expect(batches.map((b) => b.arrow.numRows)).toEqual(pages.map((p) => p.rows.length));
    batches.forEach((batch, b) => {
      expect(batch.rows).toBe(pages[b]!.rows);
      expect(batch.rejects).toBe(pages[b]!.rejects);
      expect(batch.source).toBe(pages[b]!.source);
      batch.rows.forEach((row, i) => {
        for (const column of COLUMNS)
          expect(
            Object.is(cell(batch.arrow, column.name, i), row[column.name]),
            `${column.name} row ${i} batch ${b}`,
          ).toBe(true);
      });
    });
  });

  it(
    'grows one dictionary per category column: earlier chunks kept, one new chunk per ' + 'batch with new values',
    async () => {
      const batches = await collect();
      const chunksOf = (b: number) => batches[b]!.arrow.getChild('map_type')!.data[0]!.dictionary!.data;
      const values = (b: number) =>
        chunksOf(b).map((d) => {
          const [bytes, offsets] = [d.values as Uint8Array, d.valueOffsets as Int32Array];
          return [...new Array(d.length).keys()].map((i) =>
            Buffer.from(bytes.subarray(offsets[i], offsets[i + 1])).toString(),
          );
        });
      expect(values(0)).toEqual([CATEGORY_VALUES[0]]);
      expect(values(1)).toEqual([CATEGORY_VALUES[0], ['ROI/mask']]);
      expect(chunksOf(1)[0]).toBe(chunksOf(0)[0]); // same first chunk: the IPC writer sees a delta, not a replacement
      expect(chunksOf(2)).toEqual(chunksOf(1)); // an empty page adds nothing
      expect(chunksOf(2).every((chunk, i) => chunk === chunksOf(1)[i])).toBe(true);
      expect(values(3)).toEqual([
        CATEGORY_VALUES[0],
        ['ROI/mask'],
        ['P map (given null hypothesis)', 'parcellation', '=formula category'],
      ]);
      expect(
        chunksOf(3)
          .slice(0, 2)
          .every((chunk, i) => chunk === chunksOf(1)[i]),
      ).toBe(true);
    },
  );

  it('gives a first batch without any category value an empty initial dictionary', () => {
    const builder = new ArrowBatchBuilder();
    const empty = builder.build([]);
    expect(empty.numRows).toBe(0);
    expect(empty.numCols).toBe(COLUMNS.length);
    const dictionary = empty.getChild('map_type')!.data[0]!.dictionary!;
    expect(dictionary.length).toBe(0);
    const next = builder.build([makeRow(1, 0, 0)]);
    const grown = next.getChild('map_type')!.data[0]!.dictionary!;
    expect(grown.data[0]).toBe(dictionary.data[0]);
    expect(grown.data.length).toBe(2);
  });

  it('rejects a value of the wrong type with LOAD_INVALID_VALUE, naming the row, column and page', () => {
    const cases: [string, unknown, RegExp][] = [
      ['id', '12', /column "id" holds "12" \(string\), expected a safe integer/],
      ['file_size', 1.5, /column "file_size" holds 1.5 \(number\), expected a safe integer/],
      ['age', '3', /column "age" holds "3" \(string\), expected a number/],
      ['is_valid', 1, /column "is_valid" holds 1 \(number\), expected a boolean/],
      ['add_date', 5, /column "add_date" holds 5 \(number\), expected bigint microseconds/],
      ['add_date', 2n ** 63n, /column "add_date" holds 9223372036854775808n \(bigint\)/],
      ['name', 5, /column "name" holds 5 \(number\), expected a string/],
      ['extra', { a: 1 }, /column "extra" holds \{"a":1\} \(object\), expected a string/],
      ['modality', undefined, /column "modality" holds nothing \(the key is missing\)/],
    ];
    for (const [name, value, message] of cases) {
      const row = makeRow(2, 1, 0);
      if (value === undefined) delete row[name];
      else row[name] = value as never;
      let error: unknown;
      try {
        new ArrowBatchBuilder().build([makeRow(3, 0, 1), row], 'http://x/api/images/?offset=7');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(LoadError);
      expect((error as LoadError).code).toBe('LOAD_INVALID_VALUE');
      const who = name === 'id' ? 'row 1' : 'row 1 (id 2)';
      expect((error as LoadError).message.startsWith(`load: ${who} of http://x/api/images/?offset=7: `)).toBe(true);
      expect((error as LoadError).message).toMatch(message);
    }
  });
});
