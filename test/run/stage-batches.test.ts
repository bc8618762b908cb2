/**
 * A pipeline's own stage that yields something other than a row batch, on a library run in process against the
 * bundled service over loopback HTTP: the run fails in one line naming the stage and what it yielded, not with the
 * runner's own TypeError.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePipeline, runPipeline, startService, STAGING_DIR, type RowStage } from '../../src/index.js';
import type { RunningService } from '../../src/service/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';

let service: RunningService;
let dir: string;
beforeAll(async () => {
  service = await startService({ records: 200, seed: 43 });
  dir = await tempDir();
});
afterAll(async () => {
  await service?.close();
  await removeDir(dir);
});

/** The message a run with `stages` fails with. */
async function failure(name: string, stages: RowStage[]): Promise<string> {
  const pipeline = definePipeline({ name, description: 'a stage of its own', stages });
  return runPipeline(pipeline, { baseUrl: service.url, outDir: `${dir}/${name}` }).then(
    () => 'the run succeeded',
    (e: unknown) => (e as Error).message,
  );
}

describe('a stage that fails', () => {
  it('with an error of its own: one line naming the stage and its reason', async () => {
    const keepTMaps: RowStage = async function* keepTMaps(batches) {
      for await (const b of batches) {
        if (b.rows.length > 0) throw new Error('bad row');
        yield b;
      }
    } as RowStage;
    expect(await failure('throws', [keepTMaps])).toBe('load: stage 1 (keepTMaps) failed: bad row');
  });

  it('with an error without a message, after a stage that passes all: the second, and the error', async () => {
    const same: RowStage = (batches) => batches;
    const stages = [
      same,
      async function* (batches: AsyncIterable<{ rows: unknown[] }>) {
        for await (const b of batches) {
          if (b.rows.length > 0) throw new Error('');
          yield b;
        }
      } as unknown as RowStage,
    ];
    expect(await failure('empty-message', stages)).toBe('load: stage 2 failed: Error');
  });

  it('that is not a function of the batches: one line naming the stage', async () => {
    const notAStage = { name: 'keep' } as unknown as RowStage;
    expect(await failure('not-a-function', [notAStage])).toBe(
      'pipeline "not-a-function": stages must be a list of stage functions (async generator functions of the ' +
        'batches); item 1 is {"name":"keep"}',
    );
    const noBatches = (() => 5) as unknown as RowStage;
    expect(await failure('no-batches', [noBatches])).toBe(
      'load: stage 1 (noBatches) is not a function of the batches that yields batches (an async generator function)',
    );
  });
});

describe('a stage that yields something other than a row batch', () => {
  it('a batch without its rejects: one line naming the stage', async () => {
    const keepTMaps: RowStage = async function* keepTMaps(batches) {
      for await (const b of batches) yield { source: b.source, rows: b.rows.filter((r) => r['map_type'] === 'T map') };
    } as RowStage;
    expect(await failure('no-rejects', [keepTMaps])).toBe(
      'load: stage 1 (keepTMaps) yielded a batch whose rejects is not an array: a stage yields row batches ' +
        '{ source, rows, rejects }, e.g. { ...batch, rows }',
    );
  });

  it('an array of rows, by a second stage without a name: one line naming it by its place', async () => {
    const same: RowStage = (batches) => batches;
    const stages = [
      same,
      // an array of rows where the batch belongs, by a function without a name
      async function* (batches: AsyncIterable<{ rows: unknown[] }>) {
        for await (const b of batches) yield b.rows;
      } as unknown as RowStage,
    ];
    expect(await failure('rows-alone', stages)).toBe(
      'load: stage 2 yielded a batch whose rows is not an array: a stage yields row batches ' +
        '{ source, rows, rejects }, e.g. { ...batch, rows }',
    );
  });
});

describe('a stage that breaks the id order (which the files, images.index, diff and the next run read)', () => {
  const order =
    ': a stage keeps the rows in ascending id order, each once (it may drop rows, not repeat or reorder them)';

  it('rows repeated, reversed or without an id: one line naming the stage and the row, nothing published', async () => {
    const repeat: RowStage = async function* repeat(batches) {
      for await (const b of batches) yield { ...b, rows: [...b.rows, ...b.rows] };
    };
    const reverse: RowStage = async function* reverse(batches) {
      for await (const b of batches) yield { ...b, rows: [...b.rows].reverse() };
    };
    const noId: RowStage = async function* noId(batches) {
      for await (const b of batches) yield { ...b, rows: b.rows.map((r) => ({ ...r, id: null })) };
    };
    const ids = service.servedIds().sort((a, b) => a - b);
    const [first, second, last] = [ids[0]!, ids[1]!, ids.at(-1)!];
    expect(await failure('repeat', [repeat])).toBe(
      `load: stage 1 (repeat) yielded a row of id ${first} after the row of id ${last}${order}`,
    );
    expect(await failure('reverse', [(batches) => batches, reverse])).toBe(
      `load: stage 2 (reverse) yielded a row of id ${ids.at(-2)!} after the row of id ${last}${order}`,
    );
    expect(await failure('no-id', [noId])).toBe(`load: stage 1 (noId) yielded a row whose id is null${order}`);
    for (const name of ['repeat', 'reverse', 'no-id']) expect(await readdir(join(dir, name))).toEqual([STAGING_DIR]);
    expect(second).toBeGreaterThan(first);
  });

  it('rows dropped, or every row: the run writes the rows kept', async () => {
    const everyOther: RowStage = async function* everyOther(batches) {
      for await (const b of batches) yield { ...b, rows: b.rows.filter((r) => (r['id'] as number) % 2 === 0) };
    };
    const pipeline = definePipeline({ name: 'even', description: 'even ids', stages: [everyOther] });
    const result = await runPipeline(pipeline, { baseUrl: service.url, outDir: join(dir, 'even') });
    const even = service.servedIds().filter((id) => id % 2 === 0);
    expect(result.manifest.records_written).toBe(even.length);
  });
});
