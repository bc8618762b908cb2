/** Which files name a pipeline file in a run's identity: the file and the local modules it imports, followed. */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipelineFileDigest } from '../../src/cli/pipeline-file-digest.js';
import { removeDir, tempDir } from '../helpers/readers.js';

const LIBRARY = pathToFileURL(fileURLToPath(new URL('../../dist/src/index.js', import.meta.url))).href;

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
  await mkdir(join(dir, 'rules'));
});
afterAll(async () => {
  await removeDir(dir);
});

const write = (name: string, text: string) => writeFile(join(dir, name), text);

describe('pipelineFileDigest', () => {
  it('of a file that imports no local module is the sha256 of its bytes, whatever packages it imports', async () => {
    const text = `import { definePipeline } from '${LIBRARY}';\nimport { join } from 'node:path';\nimport 'img-etl';\n`;
    await write('alone.mjs', text);
    expect(await pipelineFileDigest(join(dir, 'alone.mjs'))).toBe(createHash('sha256').update(text).digest('hex'));
  });

  it('changes with a helper the file imports, and with a module that helper imports in turn', async () => {
    await write('main.mjs', "import { rule } from './rules/rule.mjs';\nexport default rule;\n");
    await write('rules/rule.mjs', "export { rule } from '../deep.mjs'; // a re-export\n");
    await write('deep.mjs', 'export const rule = (row) => row.id * 10;\n');
    const main = join(dir, 'main.mjs');
    const before = await pipelineFileDigest(main);
    await write('deep.mjs', 'export const rule = (row) => row.id * 1000;\n');
    const after = await pipelineFileDigest(main);
    expect(after).not.toBe(before);
    await write('deep.mjs', 'export const rule = (row) => row.id * 10;\n');
    expect(await pipelineFileDigest(main)).toBe(before); // the same files, the same digest
  });
});
