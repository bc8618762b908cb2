/**
 * A config file (--config or IMG_ETL_CONFIG) is a regular file of at most 1 MiB, checked on the
 * opened file before a byte is read. A FIFO (whose open and read would wait for a writer for ever), /dev/zero (whose
 * read never ends), a folder or a larger file exits 2 at once with one line naming the path and why; the time limit
 * of each run is a guard, not what is tested.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCli, runCliHere, type CliOptions } from '../../helpers/run-cli.js';

const MIB = 1024 * 1024;
let root: string;
let service: RunningService | undefined;
beforeEach(async () => {
  root = await tempDir();
});
afterEach(async () => {
  await service?.close();
  service = undefined;
  await removeDir(root);
});

/** A snapshot run against a port nothing listens on: it makes no request when it stops at its config. */
const snapshot = (args: string[], options: CliOptions = {}) =>
  runCli(['--base-url', 'http://127.0.0.1:9', '--max-attempts', '1', '--out', join(root, 'out'), ...args], {
    timeoutMs: 30_000,
    ...options,
  });

/** The one line a refused config file gives. */
const refusal = (path: string, reason: string) => `img-etl: --config: ${path} ${reason}\n`;

describe('a config file that is not a regular file of at most 1 MiB exits 2 before it is read', () => {
  it('a FIFO, as --config of a snapshot and of files', async () => {
    const fifo = join(root, 'config.fifo');
    execFileSync('mkfifo', [fifo]);
    const run = await snapshot(['--config', fifo]);
    expect(run.stderr).toBe(refusal(fifo, 'is not a regular file (a FIFO)'));
    expect(run.code).toBe(2);
    const files = await runCli(['files', root, '--out', join(root, 'maps'), '--config', fifo], { timeoutMs: 30_000 });
    expect(files.stderr).toBe(refusal(fifo, 'is not a regular file (a FIFO)'));
    expect(files.code).toBe(2);
  });

  it('/dev/zero, as --config and as IMG_ETL_CONFIG', async () => {
    const run = await snapshot(['--config', '/dev/zero']);
    expect(run.stderr).toBe(refusal('/dev/zero', 'is not a regular file (a character device)'));
    expect(run.code).toBe(2);
    const env = await snapshot([], { env: { IMG_ETL_CONFIG: '/dev/zero' } });
    const set = refusal('/dev/zero', 'is not a regular file (a character device)');
    expect(env.stderr).toBe(set.replace('--config:', '--config, set by IMG_ETL_CONFIG:'));
    expect(env.code).toBe(2);
  });

  it('a folder', async () => {
    const folder = join(root, 'config.d');
    await mkdir(folder);
    const run = await snapshot(['--config', folder]);
    expect(run.stderr).toBe(refusal(folder, 'is not a regular file (a folder)'));
    expect(run.code).toBe(2);
  });

  it('a file of 2 MiB (valid JSON), refused; one of exactly 1 MiB is read', async () => {
    service = await startFixtureService({ records: 10 });
    const padded = (bytes: number) => {
      const json = JSON.stringify({ 'base-url': service!.url, to: ['csv'] });
      return json.slice(0, -1) + ' '.repeat(bytes - json.length) + '}';
    };
    const large = join(root, 'large.json');
    await writeFile(large, padded(2 * MIB));
    const out = join(root, 'snap');
    const refused = await runCli(['--config', large, '--out', out], { timeoutMs: 30_000 });
    expect(refused.stderr).toBe(refusal(large, 'is 2097152 bytes; a config file holds at most 1048576'));
    expect(refused.code).toBe(2);
    expect(service.stats.requests).toBe(0);

    const limit = join(root, 'limit.json');
    await writeFile(limit, padded(MIB));
    const read = await runCliHere(['--config', limit, '--out', out, '--quiet']);
    expect(read.stderr).toBe('');
    expect(read.code).toBe(0);
  });
});

describe('a config value of the wrong JSON type is refused (exit 2, one line), not read as another value', () => {
  const write = async (name: string, value: unknown) => {
    const path = join(root, name);
    await writeFile(path, JSON.stringify(value));
    return path;
  };

  it('"keep": true is not read as --keep 1 (which would prune all but the newest snapshot)', async () => {
    const path = await write('keep.json', { snapshot: true, keep: true });
    const run = await snapshot(['--config', path]);
    expect(run.stderr).toBe(refusal(path, 'sets "keep" to true; expected a number'));
    expect(run.code).toBe(2);
  });

  it('"max-missing": true is not read as --max-missing 1', async () => {
    const path = await write('missing.json', { maxMissing: true });
    const run = await snapshot(['--config', path]);
    expect(run.stderr).toBe(refusal(path, 'sets "maxMissing" to true; expected a number'));
    expect(run.code).toBe(2);
  });

  it('"to" holding a number or null is a usage error, not a crash with exit 1', async () => {
    const number = await write('to.json', { to: ['csv', 5] });
    const run = await snapshot(['--config', number]);
    expect(run.stderr).toBe(refusal(number, 'sets "to" to ["csv",5]; expected text or a list of texts'));
    expect(run.code).toBe(2);
    const nulls = await write('to-null.json', { to: [null] });
    const other = await snapshot(['--config', nulls]);
    expect(other.stderr).toBe(refusal(nulls, 'sets "to" to [null]; expected text or a list of texts'));
    expect(other.code).toBe(2);
  });

  it('files: "concurrency": true is not read as --concurrency 1', async () => {
    const path = await write('files.json', { out: join(root, 'maps'), concurrency: true });
    const run = await runCli(['files', root, '--config', path], { timeoutMs: 30_000 });
    expect(run.stderr).toBe(refusal(path, 'sets "concurrency" to true; expected a number'));
    expect(run.code).toBe(2);
  });
});
