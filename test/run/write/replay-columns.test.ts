import { access, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableToIPC, Table as ArrowTable } from 'apache-arrow';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Checkpoint } from '../../../src/extract/staging/checkpoint.js';
import { type JournalPage } from '../../../src/extract/staging/journal.js';
import { RecordIndex } from '../../../src/extract/staging/record-index.js';
import { rejectKey } from '../../../src/extract/staging/save-page.js';
import { encodePageColumns } from '../../../src/load/arrow/page-columns.js';
import { rowsOfBatch } from '../../../src/load/arrow/rows-of-batch.js';
import { IMAGES } from '../../../src/schema/columns.js';
import { NormalisationByCollection } from '../../../src/run/write/normalisation-by-collection.js';
import { replayColumns } from '../../../src/run/write/replay-columns.js';
import { Random } from '../../../src/service/basics/random.js';
import { realOrder } from '../../../src/service/basics/real-order.js';
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

describe('replayColumns over a list served out of id order', () => {
  /** 3,000 records made from the real ones (ids 1 to 3,000), staged in pages of 100 in the order `ids`. */
  async function stageIn(ids: ArrayLike<number>, at: string) {
    const identity = { source_url: 'http://x/api/images/', page_size: 100, started_at: new Date().toISOString() };
    const columns = (page: Parameters<typeof encodePageColumns>[1]) => Promise.resolve(encodePageColumns(IMAGES, page));
    const checkpoint = await Checkpoint.open(at, identity, { columns });
    const index = new RecordIndex();
    for (let start = 0; start < ids.length; start += 100) {
      const page = Array.from(ids).slice(start, start + 100);
      const records = page.map((id) => ({ ...fixtureRecords[id % fixtureRecords.length], id }));
      const pageBody = JSON.stringify({ count: ids.length, next: null, previous: null, results: records });
      const entry: Omit<JournalPage, 'file'> = {
        ...{ type: 'page', pass: 1, offset: start, limit: 100, url: `http://x/api/images/?offset=${start}` },
        ...{ collections: [], count: ids.length, ids: page, rejected: [], extra: [], at_end: false },
      };
      index.add(await checkpoint.addPage(entry, pageBody, records));
    }
    return { checkpoint, index };
  }

  /**
   * The replay's batches as Arrow IPC bytes, how many staged columns files it read and the files it left beside the
   * staging's own; `junk` files are put in the staging first, as a write killed would leave them.
   */
  async function replayAll(ids: ArrayLike<number>, at: string, junk: string[] = []) {
    const { checkpoint, index } = await stageIn(ids, at);
    for (const name of junk) await writeFile(join(at, name), 'not columns');
    try {
      const reads = vi.spyOn(checkpoint, 'readColumns');
      const batches = [];
      // 300 rows of pages held: the 30 pages do not fit
      for await (const batch of replayColumns(index, checkpoint, IMAGES, new NormalisationByCollection(), {
        cacheRows: 300,
      }))
        batches.push(batch.arrow);
      const left = (await readdir(at)).filter((name) => !/\.(json|arrow|ndjson)$|^lock$/.test(name));
      return { ipc: tableToIPC(new ArrowTable(batches)), reads: reads.mock.calls.length, left };
    } finally {
      await checkpoint.remove();
    }
  }

  it('reads each staged page once and gives the same batches as the list in id order', async () => {
    const sorted = Array.from({ length: 3000 }, (_, i) => i + 1);
    const byId = await replayAll(sorted, dir);
    const shuffled = realOrder(sorted, new Random(7));
    expect(Array.from(shuffled)).not.toEqual(sorted);
    const other = await tempDir();
    const real = await replayAll(shuffled, other, ['spill-0.bin', 'spill-99.bin']);
    // the range written replaces what a killed write left; the staging, emptied and removed, takes the rest with it
    const removed = await access(other).then(
      () => false,
      () => true,
    );
    await removeDir(other);
    expect({ reads: real.reads, left: real.left, removed }).toEqual({
      reads: 30,
      left: ['spill-99.bin'],
      removed: true,
    });
    expect(byId.reads).toBe(30);
    expect(Buffer.from(real.ipc).equals(Buffer.from(byId.ipc))).toBe(true);
  });

  it('names the spill file it cannot read, in one line with its code, when the staging folder is gone', async () => {
    // Page k holds ids k + 1, k + 31, k + 61, …: every page's rows lie far apart in id order, so all are spilled.
    const interleaved = Array.from({ length: 3000 }, (_, i) => (i % 100) * 30 + Math.floor(i / 100) + 1);
    const { checkpoint, index } = await stageIn(interleaved, dir);
    const counts = new NormalisationByCollection();
    const batches = replayColumns(index, checkpoint, IMAGES, counts, { cacheRows: 300 })[Symbol.asyncIterator]();
    try {
      expect((await batches.next()).done).toBe(false); // the spill files made, the first ranges read
      await removeDir(dir);
      const error = (await batches.next().then(
        () => undefined,
        (e: unknown) => e,
      )) as Error & { code: string };
      const spill = join(dir, 'spill-N.bin');
      expect([error.code, error.message.replace(/spill-\d+\.bin/, 'spill-N.bin')]).toEqual([
        'LOAD_WRITE_FAILED',
        `staging: cannot read ${spill}: no such file or folder (ENOENT)`,
      ]);
    } finally {
      await checkpoint.remove().catch(() => undefined); // its folder is gone
    }
  });
});
