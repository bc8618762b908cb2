/**
 * runPipeline takes the pipeline's table, stages and identity from the pipeline: a caller's own `stages`, `table` or
 * `pipeline` option, which it would silently drop (every record written, not the ones the stage keeps), is refused.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  definePipeline,
  derivedColumn,
  filterRows,
  IMAGES,
  rowSink,
  runPipeline,
  startService,
  string,
} from '../../src/index.js';
import type { RunningService } from '../../src/service/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';

let service: RunningService;
let dir: string;
beforeAll(async () => {
  service = await startService({ records: 100, seed: 47 });
  dir = await tempDir();
});
afterAll(async () => {
  await service?.close();
  await removeDir(dir);
});

const everything = definePipeline({ name: 'everything', description: 'every image' });

describe("runPipeline's options", () => {
  it("refuses stages, a table or a pipeline identity of the caller's, in one line", async () => {
    const atlases = filterRows((row) => row['image_type'] === 'atlas');
    const outDir = join(dir, 'out');
    const refused = (options: object) =>
      runPipeline(everything, { baseUrl: service.url, outDir, ...options }).then(
        () => 'the run succeeded',
        (e: unknown) => (e as Error).message,
      );
    const message = (option: string) =>
      `run: runPipeline takes ${option} from the pipeline (definePipeline's stages and columns), not from its options`;
    expect(await refused({ stages: [atlases] })).toBe(message('stages'));
    expect(await refused({ table: IMAGES })).toBe(message('table'));
    expect(await refused({ pipeline: { name: 'other', sha256: '0' } })).toBe(message('pipeline'));
  });

  it('a pipeline whose column cannot be added is a rejection, not an error thrown at the call', async () => {
    const twice = definePipeline({
      name: 'twice',
      description: 'id again',
      columns: [derivedColumn('map_type', string, 'again', () => null)],
    });
    let call = 'returned';
    const promise = (() => {
      try {
        return runPipeline(twice, { baseUrl: service.url, outDir: join(dir, 'twice') });
      } catch (error) {
        call = `threw: ${(error as Error).message}`;
        return undefined;
      }
    })();
    expect(call).toBe('returned');
    await expect(promise).rejects.toThrow('schema: column "map_type" cannot be added: images already has one');
  });

  it('refuses stages, sinks or columns not lists of what they hold, before it fetches, naming the item', async () => {
    const refused = (fields: object) =>
      runPipeline(
        { name: 'odd', description: 'odd lists', ...fields },
        {
          baseUrl: service.url,
          outDir: join(dir, 'odd'),
        },
      ).then(
        () => 'the run succeeded',
        (e: unknown) => (e as Error).message,
      );
    service.resetStats();
    expect(await refused({ stages: 'keep' })).toBe(
      'pipeline "odd": stages must be a list of stage functions (async generator functions of the batches); ' +
        'got "keep"',
    );
    expect(
      await refused({
        sinks: [
          rowSink(async (rows) => {
            for await (const _ of rows);
          }),
          'x',
        ],
      }),
    ).toBe('pipeline "odd": sinks must be a list of sinks (rowSink(…), objects with an open function); item 2 is "x"');
    expect(await refused({ columns: 'abc' })).toBe(
      'pipeline "odd": columns must be a list of columns (derivedColumn(…)); got "abc"',
    );
    expect(service.stats.listRequests).toBe(0);
  });
});
