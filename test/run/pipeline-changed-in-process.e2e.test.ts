/**
 * The command line run twice in one process (a test's, or a library user's runCli) with a pipeline file changed in
 * between runs the file as it is now: node keeps a module it imported, so the second run ran the first version while
 * its manifest named the new file's sha256.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { readManifest } from '../helpers/read-manifest.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { CLI, runCliHere } from '../helpers/run-cli.js';

let service: RunningService;
let dir: string;
beforeAll(async () => {
  service = await startFixtureService({ records: 20, seed: 5 });
  dir = await tempDir();
});
afterAll(async () => {
  await service?.close();
  await removeDir(dir);
});

const lib = pathToFileURL(join(CLI, '..', '..', 'index.js')).href;
const source = (name: string) =>
  [
    `import { definePipeline } from '${lib}';`,
    `export default definePipeline({ name: '${name}', description: 'every image' });`,
    '',
  ].join('\n');

it('a pipeline file changed between two runs in one process: the second runs the file as it is now', async () => {
  const file = join(dir, 'mine.mjs');
  for (const name of ['first-version', 'second-version']) {
    await writeFile(file, source(name));
    const out = join(dir, name);
    const run = await runCliHere(['run', file, '--base-url', service.url, '--out', out, '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    const digest = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
    expect((await readManifest(out)).pipeline).toEqual({ name, sha256: digest });
  }
});
