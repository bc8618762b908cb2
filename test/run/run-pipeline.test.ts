/**
 * runPipeline takes the pipeline's table, stages and identity from the pipeline: a caller's own `stages`, `table` or
 * `pipeline` option, which it would silently drop (every record written, not the ones the stage keeps), is refused.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePipeline, filterRows, IMAGES, runPipeline, startService } from '../../src/index.js';
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
});
