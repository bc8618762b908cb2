import type * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { decodeParts, encodePart, partRows, partSource, type Part } from '../../../src/load/arrow/column-parts.js';
import { decodePageColumns, encodePageColumns } from '../../../src/load/arrow/page-columns.js';
import { valuesOf } from '../../../src/load/arrow/rows-of-batch.js';
import { IMAGES } from '../../../src/schema/columns.js';
import { generateRecordJson } from '../../../src/service/records/generate-record.js';
import { checkRecord } from '../../../src/transform/check-record.js';
import { fixtureRecords } from '../../helpers/fixture-records.js';

/** A page of `texts` staged as staging stages it, with CSV records: every column kind, nulls, a category dictionary. */
function stagedBatch(texts: string[]): arrow.RecordBatch {
  const body = `{"count":1,"next":null,"previous":null,"results":[${texts.join(',')}]}`;
  const records = (JSON.parse(body) as { results: Record<string, unknown>[] }).results;
  const checks = records.map((record) => checkRecord(record, IMAGES));
  const ids = records.map((record, i) => (checks[i] === 'invalid' ? null : (record['id'] as number)));
  const extra = checks.flatMap((check, i) => (check === 'valid-with-extra' ? [i] : []));
  const page = { records, ids, extra, body, url: 'page' };
  return decodePageColumns(IMAGES, encodePageColumns(IMAGES, page, { rows: true, csv: { neutraliseFormulas: true } })!)
    .batch;
}

/** Every value of every column of `rows` of `batch`, row by row (categories as their strings). */
const valuesAt = (batch: arrow.RecordBatch, rows: readonly number[]) =>
  rows.map((row) => batch.data.children.map((data) => valuesOf(data)(row)));

describe('column parts', () => {
  const real = fixtureRecords.map((record, i) => {
    const copy: Record<string, unknown> = { ...record, id: 900_000 + i };
    if (i % 3 === 0) copy['description'] = null;
    if (i % 4 === 0) copy['is_valid'] = null;
    if (i % 5 === 0) copy['name'] = `Ünïcödé ✓ 🧠 ${i}`;
    const text = JSON.stringify(copy);
    return i % 2 === 0 ? `${text.slice(0, -1)},"CIAS": 47.0}` : text;
  });
  const generated = Array.from({ length: 300 }, (_, i) => generateRecordJson(7, 100_000 + i, 'http://x'));
  const first = stagedBatch([...real, ...generated.slice(0, 150)]);
  const second = stagedBatch([...generated.slice(150), ...real.slice(0, 20)]);

  it('read back give the rows written, part after part, from batches with dictionaries of their own', () => {
    const picks: [arrow.RecordBatch, number[]][] = [
      [first, [5, 3, 4, 0, 1, 2, 40, 41, 42, 43, 200]],
      [second, [7]],
      [second, []],
      [first, Array.from({ length: first.numRows }, (_, k) => first.numRows - 1 - k)],
      [second, Array.from({ length: second.numRows }, (_, k) => k)],
    ];
    const parts: Part[] = picks.map(([batch, rows]) => {
      const source = partSource(batch);
      return { bytes: encodePart(source, rows), dictionaries: source.dictionaries };
    });
    expect(parts.map((part) => partRows(part.bytes))).toEqual(picks.map(([, rows]) => rows.length));
    const joined = decodeParts(first.schema, parts);
    const all = Array.from({ length: joined.numRows }, (_, k) => k);
    expect(valuesAt(joined, all)).toEqual(picks.flatMap(([batch, rows]) => valuesAt(batch, rows)));
    expect(joined.numRows).toBe(11 + 1 + first.numRows + second.numRows);
    for (const [j, data] of joined.data.children.entries())
      expect(data.nullCount, `column ${j}`).toBe(countNulls(data));
  });

  it('read back the same from bytes that are not 8-byte aligned', () => {
    const source = partSource(second);
    const bytes = encodePart(source, [3, 4, 5, 9, 1]);
    const shifted = new Uint8Array(bytes.byteLength + 3).subarray(3);
    shifted.set(bytes);
    const joined = decodeParts(second.schema, [{ bytes: shifted, dictionaries: source.dictionaries }]);
    expect(valuesAt(joined, [0, 1, 2, 3, 4])).toEqual(valuesAt(second, [3, 4, 5, 9, 1]));
  });
});

function countNulls(data: arrow.Data): number {
  let nulls = 0;
  for (let row = 0; row < data.length; row++) if (valuesOf(data)(row) === null) nulls++;
  return nulls;
}
