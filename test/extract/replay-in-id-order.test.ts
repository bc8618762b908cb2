import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Checkpoint, type JournalPage } from '../../src/extract/checkpoint.js';
import { RecordIndex } from '../../src/extract/record-index.js';
import { replayInIdOrder } from '../../src/extract/replay-in-id-order.js';
import { rejectKey } from '../../src/extract/stage-page.js';
import { emptyNormalisationCounts } from '../../src/schema/normalisation-counts.js';
import { normalise } from '../../src/transform/normalise.js';
import { fixtureRecords } from '../helpers/fixture-records.js';
import { removeDir, tempDir } from '../helpers/readers.js';

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

/** Stages the page, with the journal's `extra` positions or (as an earlier version wrote it) without them. */
async function replay(extra: number[] | undefined) {
  const checkpoint = await Checkpoint.open(dir, {
    source_url: 'http://x/api/images/',
    page_size: 3,
    started_at: new Date().toISOString(),
  });
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
      at_end: false,
    };
    const index = new RecordIndex();
    index.add(await checkpoint.addPage(extra === undefined ? entry : { ...entry, extra }, body));
    const batches = [];
    for await (const batch of normalise(replayInIdOrder(index, checkpoint), emptyNormalisationCounts())) {
      batches.push(batch);
    }
    const extras = batches.flatMap((b) => b.rows.map((r) => [r['id'], r['extra']]));
    return { extras, rejects: batches.flatMap((b) => b.rejects.map((r) => r.text)) };
  } finally {
    await checkpoint.remove();
  }
}

describe('replayInIdOrder', () => {
  it.each([
    ['the journal names the records with unknown keys', [0]],
    ['a journal of an earlier version does not', undefined],
  ])('gives records and rejects their served text when %s', async (_, extra) => {
    const extras = [
      [1, null],
      [2, '{"CIAS":47.0,"big":12345678901234567890}'],
    ];
    expect(await replay(extra)).toEqual({ extras, rejects: [texts[1]] });
  });
});
