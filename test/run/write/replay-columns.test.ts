import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Checkpoint } from '../../../src/extract/staging/checkpoint.js';
import { type JournalPage } from '../../../src/extract/staging/journal.js';
import { RecordIndex } from '../../../src/extract/staging/record-index.js';
import { rejectKey } from '../../../src/extract/staging/save-page.js';
import { encodePageColumns } from '../../../src/load/arrow/page-columns.js';
import { rowsOfBatch } from '../../../src/load/arrow/rows-of-batch.js';
import { IMAGES } from '../../../src/schema/columns.js';
import { NormalisationByCollection } from '../../../src/run/write/normalisation-by-collection.js';
import { replayColumns } from '../../../src/run/write/replay-columns.js';
import { fixtureRecords } from '../../helpers/fixture-records.js';
import { removeDir, tempDir } from '../../helpers/readers.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

/** A real record with only known keys, as JSON text with the given id, without its closing brace. */
const open = (id: number) =>
  JSON.stringify({ ...fixtureRecords.find((r) => r['id'] === 14225)!, data: undefined, id }).slice(0, -1);
const texts = [`${open(2)},"CIAS":47.0,"big":12345678901234567890}`, `{"id": 12345678901234567891}`, `${open(1)}}`];
const body = `{"count":3,"next":null,"previous":null,"results":[${texts.join(',')}]}`;

/** Stages the page as a run does (its columns too), and replays it. */
async function replay() {
  const identity = { source_url: 'http://x/api/images/', page_size: 3, started_at: new Date().toISOString() };
  const columns = (page: Parameters<typeof encodePageColumns>[1]) => Promise.resolve(encodePageColumns(IMAGES, page));
  const checkpoint = await Checkpoint.open(dir, identity, { columns });
  try {
    const url = 'http://x/api/images/?limit=3&offset=0';
    const entry: Omit<JournalPage, 'file'> = {
      type: 'page',
      pass: 1,
      offset: 0,
      limit: 3,
      url,
      count: 3,
      ids: [2, null, 1],
      rejected: [rejectKey(JSON.parse(texts[1]!))],
      extra: [0],
      collections: [],
      at_end: false,
    };
    const index = new RecordIndex();
    index.add(await checkpoint.addPage(entry, body, (JSON.parse(body) as { results: unknown[] }).results));
    const batches = [];
    const counts = new NormalisationByCollection();
    for await (const batch of replayColumns(index, checkpoint, IMAGES, counts)) batches.push(batch);
    const extras = batches.flatMap((b) => b.rows.map((r) => [r['id'], r['extra']]));
    const extra = counts.totals(IMAGES).recordsWithExtra;
    return { extras, rejects: batches.flatMap((b) => b.rejects.map((r) => r.text)), extra };
  } finally {
    await checkpoint.remove();
  }
}

describe('replayColumns', () => {
  it('gives the records in id order with unknown keys as served, and the rejects as served', async () => {
    const extras = [
      [1, null],
      [2, '{"CIAS":47.0,"big":12345678901234567890}'],
    ];
    expect(await replay()).toEqual({ extras, rejects: [texts[1]], extra: 1 });
  });
});

describe('replayColumns without Arrow batches', () => {
  it('gives the rows of the gathered batches, read straight from the staged pages, and no Arrow batch', async () => {
    const identity = { source_url: 'http://x/api/images/', page_size: 20, started_at: new Date().toISOString() };
    const columns = (page: Parameters<typeof encodePageColumns>[1]) => Promise.resolve(encodePageColumns(IMAGES, page));
    const checkpoint = await Checkpoint.open(dir, identity, { columns });
    try {
      const index = new RecordIndex();
      // the real records in pages of 20, the pages staged last to first (the write reorders them by id)
      const records = [...fixtureRecords].sort((a, b) => (a['id'] as number) - (b['id'] as number));
      for (let start = 40; start >= 0; start -= 20) {
        const page = records.slice(start, start + 20);
        const pageBody = JSON.stringify({ count: records.length, next: null, previous: null, results: page });
        const entry: Omit<JournalPage, 'file'> = {
          ...{ type: 'page', pass: 1, offset: start, limit: 20, url: `http://x/api/images/?offset=${start}` },
          collections: [],
          ...{ count: records.length, ids: page.map((r) => r['id'] as number), rejected: [], extra: [], at_end: false },
        };
        index.add(await checkpoint.addPage(entry, pageBody, page));
      }
      const read = async (arrow: boolean) => {
        const batches = [];
        const counts = new NormalisationByCollection();
        for await (const batch of replayColumns(index, checkpoint, IMAGES, counts, { batchSize: 7, arrow }))
          batches.push(batch);
        return batches;
      };
      const [gathered, straight] = [await read(true), await read(false)];
      expect(straight.map((b) => b.rows)).toEqual(gathered.map((b) => rowsOfBatch(b.arrow, IMAGES)));
      expect(straight.flatMap((b) => b.rows).map((r) => r['id'])).toEqual(records.map((r) => r['id']));
      expect(() => straight[0]!.arrow).toThrow(/was not gathered/);
    } finally {
      await checkpoint.remove();
    }
  });
});
