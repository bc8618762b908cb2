/**
 * Messages that point at the mistake: a mistyped command or option names the nearest one and the `--help` to read; a
 * --base-url naming another API path than the image list is refused before any request, naming the list; a service
 * that refuses connections is said to be unreachable at its address. The real CLI, over loopback HTTP.
 */
import { createServer } from 'node:net';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCli } from '../helpers/run-cli.js';

let out: string;
let service: RunningService | undefined;
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await service?.close();
  service = undefined;
  await removeDir(out);
});

describe('unknown commands and options', () => {
  it.each([
    [['reprot'], 'unknown command "reprot": did you mean report? (see img-etl --help)'],
    [['--too', 'parquet'], 'unknown option --too: did you mean --to? (see img-etl --help)'],
    [['--out', 'snap', 'flies'], 'unknown command "flies": did you mean files? (see img-etl --help)'],
    [
      ['files', 'snap', '--out', 'maps', '--wher', 'id = 1'],
      'unknown option --wher: did you mean --where? (see img-etl files --help)',
    ],
    [['run', 'full-snapshot', '--fersh'], 'unknown option --fersh: did you mean --fresh? (see img-etl run --help)'],
    [
      ['--qiet', '--summry', 'json'],
      'unknown option --qiet: did you mean --quiet?; unknown option --summry: did you mean --summary? ' +
        '(see img-etl --help)',
    ],
    [['--zzz'], 'unknown option --zzz (see img-etl --help)'],
    [['diff', 'a', 'b', 'c'], 'unexpected argument "c" (see img-etl diff --help)'],
    [['diff', 'a'], 'missing <new> (img-etl diff <old> <new>; see img-etl diff --help)'],
    [['report'], 'missing <snapshot> (img-etl report <snapshot>; see img-etl report --help)'],
    [['files', 'a'], 'missing --out, which files requires (see img-etl files --help)'],
    // an unknown option explains what yargs finds missing after it: it is said first, and instead
    [['files', 'snap', '--outt', 'maps'], 'unknown option --outt: did you mean --out? (see img-etl files --help)'],
    [['files', '--outt', 'maps'], 'unknown option --outt: did you mean --out? (see img-etl files --help)'],
    [['diff', 'a', '--zzz', 'b'], 'unknown option --zzz (see img-etl diff --help)'],
  ])('%j: exit code 2 and one line naming the nearest and the help', async (args, message) => {
    const run = await runCli(args, { cwd: out });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`img-etl: ${message}\n`);
    expect(run.stdout).toBe('');
    expect(await readdir(out)).toEqual([]);
  });
});

describe('an option given without its value', () => {
  // yargs would use the default: `--out --snapshot` snapshotting into ./output, `--page-size --quiet` asking 1000
  it.each([
    [['--out', '--snapshot'], 'out'],
    [['--page-size', '--quiet'], 'page-size'],
    [['run', 'full-snapshot', '--max-missing'], 'max-missing'],
    [['--dry-run', '--summary'], 'summary'],
  ])('%j is a usage error naming the option', async (args, name) => {
    const run = await runCli([...args, '--base-url', 'http://127.0.0.1:9', '--max-attempts', '1'], { cwd: out });
    expect(run.stderr).toBe(`img-etl: Not enough arguments following: ${name}\n`);
    expect(run.code).toBe(2);
    expect(await readdir(out)).toEqual([]);
  });
});

describe('an option of demo given without its value', () => {
  it.each([
    [['demo', '--records'], 'records'],
    [['demo', '--out'], 'out'],
  ])('%j is a usage error naming the option, before the demo serves or writes anything', async (args, name) => {
    const run = await runCli(args, { cwd: out });
    expect(run.stderr).toBe(`img-etl: Not enough arguments following: ${name}\n`);
    expect(run.code).toBe(2);
    expect(await readdir(out)).toEqual([]);
  });
});

describe('a --base-url that names another API path than the image list', () => {
  it.each([
    [[], '/api/image/', '/api/images/', '/'],
    [['--dry-run'], '/api/collections/', '/api/images/', '/'],
    [['run', 'full-snapshot'], '/nv/api/', '/nv/api/images/', '/nv/'],
    [['files', 'snap'], '/api/image', '/api/images/', '/'],
  ])('%j %s: exit code 2 before any request, naming the list', async (command, path, list, service_) => {
    service = await startFixtureService({ records: 10 });
    const origin = new URL(service.url).origin;
    const run = await runCli([...command, '--base-url', `${origin}${path}`, '--out', 'snap'], { cwd: out });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `img-etl: --base-url: the image list is at ${origin}${list}, not ${origin}${path} ` +
        `(or give the service alone: ${origin}${service_})\n`,
    );
    expect(service.stats.requests).toBe(0);
    expect(await readdir(out)).toEqual([]);
  });

  it.each([['/api/images/'], ['/api/images'], ['/']])('takes %s', async (path) => {
    service = await startFixtureService({ records: 10 });
    const origin = new URL(service.url).origin;
    const run = await runCli(['--base-url', `${origin}${path}`, '--out', 'snap', '--quiet'], { cwd: out });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});

describe('a --base-url without http:// or https://', () => {
  it.each([
    ['127.0.0.1:8765', 'http://127.0.0.1:8765'],
    ['localhost:8765', 'http://localhost:8765'],
    ['neurovault.org', 'https://neurovault.org'],
  ])('%s: exit code 2 before any request, suggesting %s', async (given, suggested) => {
    const run = await runCli(['--base-url', given, '--out', 'snap'], { cwd: out });
    expect(run.stderr).toBe(`img-etl: --base-url: ${JSON.stringify(given)} is not a URL: did you mean ${suggested}?\n`);
    expect(run.code).toBe(2);
    expect(await readdir(out)).toEqual([]);
  });
});

describe('a --base-url whose path holds no image list', () => {
  it.each([[[]], [['--dry-run']]])(
    '%j: one line saying --base-url holds no image list and what it should be, nothing on collection endpoints',
    async (command) => {
      service = await startFixtureService({ records: 10 });
      const base = `${new URL(service.url).origin}/neurovault/`;
      const run = await runCli([...command, '--base-url', base, '--out', 'snap'], { cwd: out });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `img-etl: extract: GET ${base}api/images/?limit=1000&offset=0 returned 404; --base-url ${base} holds no ` +
          "image list: give the service's root, the URL before /api/images/ (https://neurovault.org for " +
          'NeuroVault)\n',
      );
    },
  );
});

describe('a --base-url whose host DNS does not know', () => {
  it('fails at the first attempt, in one line saying the host could not be found and to check --base-url', async () => {
    const base = 'http://img-etl-test.invalid';
    const run = await runCli(['--base-url', base, '--out', 'snap'], { cwd: out });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `img-etl: extract: GET ${base}/api/collections/?limit=1000&offset=0 failed (getaddrinfo ENOTFOUND ` +
        'img-etl-test.invalid: the host img-etl-test.invalid could not be found); check --base-url\n',
    );
    expect(await readdir(out)).toEqual([]);
  });
});

it('says a service that refuses connections is not reachable at its address, and keeps the URL', async () => {
  const port = await closedPort();
  const base = `http://127.0.0.1:${port}`;
  const run = await runCli(['--base-url', base, '--out', 'snap', '--max-attempts', '2', '--retry-delay', '0.01'], {
    cwd: out,
  });
  expect(run.code).toBe(1);
  const last = run.stderr.trim().split('\n').at(-1);
  expect(last).toBe(
    `img-etl: extract: GET ${base}/api/collections/?limit=1000&offset=0 failed ` +
      `(connect ECONNREFUSED 127.0.0.1:${port}: the service is not reachable at ${base}; is it running there?) ` +
      'after 2 attempts; check --base-url',
  );
});

it('a failed run that staged nothing leaves no folder it created, nor anything in one it did not', async () => {
  const port = await closedPort();
  const refused = ['--base-url', `http://127.0.0.1:${port}`, '--max-attempts', '1'];
  const created = await runCli([...refused, '--out', 'snap/nightly'], { cwd: out });
  expect(created.code).toBe(1);
  expect(await readdir(out)).toEqual([]);
  const snapshots = await runCli([...refused, '--out', 'snaps', '--snapshot'], { cwd: out });
  expect(snapshots.code).toBe(1);
  expect(await readdir(out)).toEqual([]);
  await mkdir(join(out, 'mine'));
  const given = await runCli([...refused, '--out', 'mine'], { cwd: out });
  expect(given.code).toBe(1);
  expect(await readdir(out)).toEqual(['mine']);
  expect(await readdir(join(out, 'mine'))).toEqual([]);
});

/** A loopback port nothing listens on: one the system gave a server that has closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('--to before a positional argument', () => {
  // --to is an array option: yargs gave it every word after it, so the pipeline or snapshot given next was taken for a
  // format ("Not enough non-option arguments"). One value per --to, as documented (repeated or comma-separated).
  it.each([
    [['run', '--to', 'csv', 'no-such-pipeline'], /no-such-pipeline/],
    [['files', '--to', 'csv', 'no-such-folder', '--out', 'maps'], /no-such-folder/],
  ])('leaves the positional to its command: %j', async (args, named) => {
    const run = await runCli(args, { cwd: out });
    expect(run.code).toBe(2);
    expect(run.stderr).not.toMatch(/non-option arguments/);
    expect(run.stderr).toMatch(named);
  });
});
