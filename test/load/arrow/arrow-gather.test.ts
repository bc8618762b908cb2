import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { ArrowBatchBuilder } from '../../../src/load/arrow/arrow-batches.js';
import { ArrowGatherer } from '../../../src/load/arrow/arrow-gather.js';
import {
  decodePageColumns,
  encodePageColumns,
  type PageColumns,
  type StagedColumns,
} from '../../../src/load/arrow/page-columns.js';
import { formatCsvRows } from '../../../src/load/csv/csv-format.js';
import { rowsOfBatch } from '../../../src/load/arrow/rows-of-batch.js';
import { IMAGES } from '../../../src/schema/columns.js';
import { derivedColumn } from '../../../src/schema/derived-column.js';
import {
  addCounts,
  emptyNormalisationCounts,
  type NormalisationCounts,
} from '../../../src/schema/normalisation-counts.js';
import { withColumns } from '../../../src/schema/with-columns.js';
import { int64 } from '../../../src/schema/column-types/int64.js';
import type { Row } from '../../../src/schema/row.js';
import type { Table } from '../../../src/schema/table.js';
import { generateRecordJson } from '../../../src/service/records/generate-record.js';
import { checkRecord } from '../../../src/transform/check-record.js';
import { normaliseRecords } from '../../../src/transform/normalise.js';
import { fixtureRecords } from '../../helpers/fixture-records.js';

/** Records as served: the real ones, the bundled service's, and copies with nulls, blanks, sentinels, unknown keys. */
function servedTexts(): string[] {
  const texts = fixtureRecords.map((r) => JSON.stringify(r));
  for (let id = 1; id <= 2_500; id++) texts.push(generateRecordJson(7, 100_000 + id, 'http://x'));
  fixtureRecords.forEach((record, i) => {
    const copy: Record<string, unknown> = { ...record, id: 900_000 + i };
    if (i % 2 === 0) copy['cognitive_paradigm_cogatlas'] = 'None / Other';
    if (i % 3 === 0) copy['name'] = '';
    if (i % 4 === 0) copy['description'] = null;
    if (i % 5 === 0) copy['smoothness_fwhm'] = null;
    if (i % 6 === 0) copy['is_valid'] = null;
    if (i % 7 === 0) copy['name'] = `Ünïcödé ✓ ${i}`;
    if (i % 8 === 0) delete copy['add_date'];
    const text = JSON.stringify(copy);
    texts.push(i % 2 === 0 ? `${text.slice(0, -1)},"CIAS": 47.0, "big": 12345678901234567890}` : text);
  });
  return texts;
}

/** The texts as pages of `size`, each encoded as staging encodes it. */
function stagedPages(table: Table, texts: string[], size: number, staged?: StagedColumns) {
  const pages: { records: Record<string, unknown>[]; columns: PageColumns; rowOf: number[] }[] = [];
  for (let start = 0; start < texts.length; start += size) {
    const body = `{"count":1,"next":null,"previous":null,"results":[${texts.slice(start, start + size).join(',')}]}`;
    const records = (JSON.parse(body) as { results: Record<string, unknown>[] }).results;
    const checks = records.map((r) => checkRecord(r, table));
    const ids = records.map((r, i) => (checks[i] === 'invalid' ? null : (r['id'] as number)));
    const extra = checks.flatMap((c, i) => (c === 'valid-with-extra' ? [i] : []));
    const bytes = encodePageColumns(table, { records, ids, extra, body, url: `page ${start}` }, staged)!;
    const rowOf: number[] = [];
    ids.forEach((id) => rowOf.push(id === null ? -1 : rowOf.filter((r) => r >= 0).length));
    pages.push({
      records: (JSON.parse(body) as { results: Record<string, unknown>[] }).results,
      columns: decodePageColumns(table, bytes),
      rowOf,
    });
  }
  return pages;
}

/** A seeded shuffle. */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const withYear = withColumns(IMAGES, [
  derivedColumn('add_year', int64, 'year', (row) =>
    typeof row['add_date'] === 'bigint' ? new Date(Number(row['add_date'] / 1000n)).getUTCFullYear() : null,
  ),
]);

describe('ArrowGatherer over staged page columns', () => {
  it.each([
    ['the images in shuffled order', IMAGES, 97, 1_000, 1],
    ['a table with a derived column in shuffled order', withYear, 250, 333, 1],
    ['the images nearly in page order (runs of rows)', IMAGES, 97, 1_000, 0.02],
    ['the images in page order, each page a batch', IMAGES, 500, 500, 0],
  ])('gives, for %s, the very batches the builder gives from the same rows', (_, table, pageSize, batchSize, moved) => {
    const pages = stagedPages(table, servedTexts(), pageSize);
    const all = pages.flatMap((page, p) =>
      page.rowOf.flatMap((row, position) => (row < 0 ? [] : [{ p, position, row }])),
    );
    // `moved` of them shuffled among themselves, the others in page order
    const movedAt = all.flatMap((_, i) => ((i * 7919) % 100 < moved * 100 ? [i] : []));
    const picks = [...all];
    shuffled(movedAt, 42).forEach((from, i) => (picks[movedAt[i]!] = all[from]!));
    const builder = new ArrowBatchBuilder(table);
    const gatherer = new ArrowGatherer(table);
    const built: arrow.RecordBatch[] = [];
    const gathered: arrow.RecordBatch[] = [];
    const expectedCounts = emptyNormalisationCounts();
    const counts = emptyNormalisationCounts();
    for (let start = 0; start <= picks.length; start += batchSize) {
      const some = picks.slice(start, start + batchSize);
      const rows = normaliseRecords(
        some.map(({ p, position }) => pages[p]!.records[position]!),
        expectedCounts,
        table,
      );
      // records with unknown keys carry their served text in staging; the builder's rows here re-serialise them
      const batch = gatherer.gather({
        batches: some.map(({ p }) => pages[p]!.columns.batch),
        rows: some.map((s) => s.row),
      });
      for (const { p, row } of some) {
        const replaced = pages[p]!.columns.replaced(row);
        if (replaced !== null) addCounts(counts, JSON.parse(replaced) as NormalisationCounts);
      }
      const back = rowsOfBatch(batch, table);
      const parsedExtra = (r: Row) => ({
        ...r,
        extra: r['extra'] === null ? null : (JSON.parse(String(r['extra'])) as unknown),
      });
      expect(back.map(parsedExtra)).toEqual(rows.map(parsedExtra));
      built.push(builder.build(back));
      gathered.push(batch);
    }
    expect(counts).toEqual(expectedCounts);
    expect(counts.recordsWithExtra).toBeGreaterThan(0);
    expect(Object.keys(counts.sentinelToNull).length).toBeGreaterThan(0);
    expect(Object.keys(counts.emptyToNull).length).toBeGreaterThan(0);
    const ipc = (batches: arrow.RecordBatch[]) => Buffer.from(arrow.tableToIPC(new arrow.Table(batches), 'file'));
    expect(ipc(gathered).equals(ipc(built))).toBe(true);
  });

  it('gathers the CSV records staged beside the columns: what the builtin writer writes for the rows', () => {
    for (const neutraliseFormulas of [true, false]) {
      const texts = servedTexts();
      const pages = stagedPages(IMAGES, texts, 97, { rows: true, csv: { neutraliseFormulas } });
      const picks = shuffled(
        pages.flatMap((page, p) => page.rowOf.flatMap((row, position) => (row < 0 ? [] : [{ p, position, row }]))),
        7,
      );
      const gatherer = new ArrowGatherer(IMAGES);
      const some = { batches: picks.map(({ p }) => pages[p]!.columns.batch), rows: picks.map((s) => s.row) };
      expect(pages.every((page) => page.columns.csv?.neutraliseFormulas === neutraliseFormulas)).toBe(true);
      const rows = rowsOfBatch(gatherer.gather(some), IMAGES);
      const records = Buffer.from(gatherer.text(some, IMAGES.names.length + 1).values);
      expect(records.equals(formatCsvRows(rows, 'p', neutraliseFormulas, IMAGES))).toBe(true);
    }
  });

  it('stages for a write that reads no row its CSV records, collections and replacements, as beside the rows', () => {
    const texts = servedTexts();
    const csv = { neutraliseFormulas: false };
    const beside = stagedPages(IMAGES, texts, 97, { rows: true, csv });
    const alone = stagedPages(IMAGES, texts, 97, { rows: false, csv });
    expect(alone.length).toBe(beside.length);
    alone.forEach(({ columns }, p) => {
      const full = beside[p]!.columns;
      expect([columns.rows, full.rows, columns.batch.numCols]).toEqual([false, true, 3]);
      const rows = [...Array(full.batch.numRows).keys()];
      expect(rows.map((row) => columns.collection(row))).toEqual(rows.map((row) => full.collection(row)));
      expect(rows.map((row) => columns.replaced(row))).toEqual(rows.map((row) => full.replaced(row)));
      expect(Buffer.from(columns.csv!.records.values).equals(Buffer.from(full.csv!.records.values))).toBe(true);
      expect(columns.csv!.neutraliseFormulas).toBe(false);
    });
  });

  it('refuses a staged page of another table', () => {
    const texts = [JSON.stringify(fixtureRecords[0])];
    const bytes = encodePageColumns(IMAGES, {
      records: [JSON.parse(texts[0]!) as unknown],
      ids: [fixtureRecords[0]!['id'] as number],
      extra: [],
      body: `{"results":[${texts[0]}]}`,
      url: 'p',
    })!;
    expect(() => decodePageColumns(withYear, bytes)).toThrow(/not those of table images/);
  });
});
