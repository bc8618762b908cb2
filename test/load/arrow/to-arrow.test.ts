import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DataType,
  MessageHeader,
  MessageReader,
  RecordBatchFileReader,
  TimeUnit,
  tableFromIPC,
  type Dictionary,
  type TimestampMicrosecond,
} from 'apache-arrow';
import { COLUMNS } from '../../../src/schema/columns.js';
import { toArrowBatches } from '../../../src/load/arrow/arrow-batches.js';
import { toArrow } from '../../../src/load/arrow/to-arrow.js';
import { expectResultMatchesFile, listDir, removeDir, tempDir } from '../../helpers/readers.js';
import { fixtureBatches, fixtureRows, streamOf } from '../fixture-rows.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

describe('toArrow', () => {
  it(
    'writes an IPC file that apache-arrow reads back value by value, with types, metadata and one dictionary per ' +
      'category column (no delta dictionaries, which polars cannot read)',
    async () => {
      const path = join(dir, 'images.arrow');
      const metadata = { 'img-etl.source_url': 'http://neurovault.org/api/images/', 'img-etl.schema_version': '1' };
      const result = await toArrow(toArrowBatches(streamOf(fixtureBatches())), { path, metadata });
      const rows = fixtureRows();
      expect(result).toMatchObject({ format: 'arrow', path, rows: rows.length });
      await expectResultMatchesFile(result);
      expect(await listDir(dir)).toEqual(['images.arrow']);

      const bytes = await readFile(path);
      expect(bytes.subarray(0, 6).toString('latin1')).toBe('ARROW1'); // the file format, not the stream format
      const table = tableFromIPC(bytes);
      expect(table.numRows).toBe(rows.length);
      expect(Object.fromEntries(table.schema.metadata)).toEqual(metadata);
      for (const column of COLUMNS) {
        const field = table.schema.fields.find((f) => f.name === column.name)!;
        expect(field.nullable).toBe(true);
        if (column.type.kind === 'timestamp') {
          const type = field.type as TimestampMicrosecond;
          expect(DataType.isTimestamp(type)).toBe(true);
          expect(type.unit).toBe(TimeUnit.MICROSECOND);
          expect(type.timezone).toBe('UTC');
        }
        if (column.type.kind === 'category') {
          const type = field.type as Dictionary;
          expect(DataType.isDictionary(type)).toBe(true);
          expect(type.indices.toString()).toBe('Int32');
          expect(String(type.dictionary)).toBe('Utf8');
        }
        if (column.type.kind === 'int64') expect(String(field.type)).toBe('Int64');
        if (column.type.kind === 'float64') expect(String(field.type)).toBe('Float64');
        if (column.type.kind === 'boolean') expect(String(field.type)).toBe('Bool');
        if (column.type.kind === 'string' || column.type.kind === 'json') expect(String(field.type)).toBe('Utf8');
      }
      for (const column of COLUMNS) {
        const vector = table.getChild(column.name)!;
        const got: unknown[] = [];
        for (const data of vector.data) {
          for (let i = 0; i < data.length; i++) {
            if (!data.getValid(i)) got.push(null);
            else if (DataType.isTimestamp(data.type)) got.push((data.values as BigInt64Array)[data.offset + i]);
            else got.push(undefined);
          }
        }
        const plain = [...vector].map((v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
        const values = got.map((g, i) => (g === undefined ? plain[i] : g));
        rows.forEach((row, i) =>
          expect(
            Object.is(values[i], row[column.name]),
            `${column.name} row ${i}: ${String(values[i])} vs ${String(row[column.name])}`,
          ).toBe(true),
        );
      }

      // One dictionary per category column, holding the values of every batch (pages 2 and 4 bring new ones), and
      // no delta: each dictionary message of the file's stream part is the only one of its id.
      const reader = RecordBatchFileReader.from(bytes);
      reader.open();
      const categories = COLUMNS.flatMap((c, j) => (c.type.kind === 'category' ? [j] : []));
      expect(reader.numDictionaries).toBe(categories.length);
      expect(reader.numRecordBatches).toBe(fixtureBatches().length);
      const dictionaries: { id: number; isDelta: boolean }[] = [];
      const messages = new MessageReader(bytes.subarray(8)); // after the file's magic: the stream format
      for (let m = messages.readMessage(); m !== null; m = messages.readMessage()) {
        messages.readMessageBody(m.bodyLength);
        if (m.headerType !== MessageHeader.DictionaryBatch) continue;
        const header = m.header() as unknown as { id: number; isDelta: boolean };
        dictionaries.push({ id: Number(header.id), isDelta: header.isDelta });
      }
      expect(dictionaries).toEqual(categories.map((id) => ({ id, isDelta: false })));
    },
  );

  it('writes a valid empty file, schema and dictionaries included, from a stream without batches', async () => {
    const path = join(dir, 'empty.arrow');
    const result = await toArrow(toArrowBatches(streamOf([])), { path });
    expect(result.rows).toBe(0);
    await expectResultMatchesFile(result);
    const table = tableFromIPC(await readFile(path));
    expect(table.numRows).toBe(0);
    expect(table.schema.fields.map((f) => f.name)).toEqual(COLUMNS.map((c) => c.name));
    expect(table.schema.metadata.size).toBe(0);
  });
});
