/**
 * The `img-etl` command runs node with NODE_FLAGS, given the way node takes them: on its command line, from the first
 * line of main.ts, which npm's bin link (and this test) runs as an executable. The manifest says which flags a run had.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import { startService, type RunningService } from '../../src/service/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { CLI, runCli, type CliRun } from '../helpers/run-cli.js';

let out: string;
let service: RunningService;
beforeEach(async () => {
  out = await tempDir();
  service = await startService({ records: 120, seed: 3 });
});
afterEach(async () => {
  await service.close();
  await removeDir(out);
});

/** Runs the built CLI file itself as a program, as `npx img-etl` does: the kernel reads its first line. */
function runExecutable(args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(CLI, args, { timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

async function runtimeOf(dir: string): Promise<{ node: string; flags: string[] }> {
  return (
    JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { runtime: { node: string; flags: string[] } }
  ).runtime;
}

describe('node flags', () => {
  it('main.ts starts node with exactly NODE_FLAGS', async () => {
    const first = (await readFile(new URL('../../src/cli/main.ts', import.meta.url), 'utf8')).split('\n')[0];
    expect(first).toBe(`#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`);
    const built = (await readFile(CLI, 'utf8')).split('\n')[0];
    expect(built).toBe(first);
  });

  it('a run of the img-etl program has them in effect, and its manifest says so', async () => {
    const run = await runExecutable(['--base-url', service.url, '--out', out, '--quiet']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await runtimeOf(out)).toEqual({ node: process.version, flags: [...NODE_FLAGS] });
  });

  it('a run of node without them says it had none', async () => {
    const run = await runCli(['--base-url', service.url, '--out', out, '--quiet'], { nodeArgs: [] });
    expect(run.code).toBe(0);
    expect(await runtimeOf(out)).toEqual({ node: process.version, flags: [] });
  });
});
