/**
 * Command-line conventions: options that cannot work are refused (exit 2, one line) before any request; the list URL
 * `img-etl serve` prints works as --base-url; --version; numbers shown as numbers in help; and output piped to a slow
 * reader arrives whole. The real CLI against the bundled service over loopback HTTP.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { open, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SummaryDocument } from '../../src/cli/printing/summary.js';
import { snapshotName } from '../../src/snapshot/snapshot-names.js';
import type { RunningService } from '../../src/service/index.js';
import { expectRowsMatch } from '../helpers/expected-row.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { expectedRowsOf, readParquetRows } from '../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { cliArgv, runCli, runCliHere } from '../helpers/run-cli.js';
import { readManifest } from '../helpers/read-manifest.js';

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

const runFile = promisify(execFile);
const manifestOf = (dir = out) => readManifest(dir);

describe('options that cannot work', () => {
  it.each([
    [['--to', ''], {}, '--to: no format given; choose from parquet, arrow, csv'],
    [['--to', ' , '], {}, '--to: no format given; choose from parquet, arrow, csv'],
    [['--timeout', '1e12'], {}, '--timeout: expected at most 86400 seconds (a day), got 1000000000000'],
    [['--timeout', '86401'], {}, '--timeout: expected at most 86400 seconds (a day), got 86401'],
    [
      ['--progress-interval', '3000000'],
      {},
      '--progress-interval: expected at most 86400 seconds (a day), got 3000000',
    ],
    [['--fresh=maybe'], {}, '--fresh: expected true or false, got "maybe"'],
    [['--fresh=1'], {}, '--fresh: expected true or false, got "1"'],
    [['--no-fresh=yes'], {}, '--fresh: expected true or false, got "yes"'],
    [['--dryRun=TRUE'], {}, '--dry-run: expected true or false, got "TRUE"'],
    [[], { IMG_ETL_FRESH: 'maybe' }, 'IMG_ETL_FRESH: expected true or false, got "maybe"'],
    [[], { IMG_ETL_NEUTRALISE_FORMULAS: 'off' }, 'IMG_ETL_NEUTRALISE_FORMULAS: expected true or false, got "off"'],
    [[], { IMG_ETL_TOO: 'parquet' }, 'IMG_ETL_TOO: no such option; did you mean IMG_ETL_TO?'],
    [[], { IMG_ETL_PAGESIZE: '100' }, 'IMG_ETL_PAGESIZE: no such option; did you mean IMG_ETL_PAGE_SIZE?'],
    [[], { IMG_ETL_FROBNICATE: '1' }, 'IMG_ETL_FROBNICATE: no such option'],
    [['--concurrency', ''], {}, '--concurrency: empty; expected a number'],
    [['--page-size='], {}, '--page-size: empty; expected a number'],
    [[], { IMG_ETL_CONCURRENCY: '' }, 'IMG_ETL_CONCURRENCY: empty; expected a number'],
    [['--out', 'other'], {}, '--out: given more than once ("snap", "other"); give one folder'],
  ])('refuses %j %j with exit code 2 and one line, before any request', async (args, env, message) => {
    service = await startFixtureService({ records: 10 });
    const run = await runCli(['--base-url', service.url, '--out', 'snap', ...args], { env, cwd: out });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`img-etl: ${message}\n`);
    expect(run.stdout).toBe('');
    expect(service.stats.requests).toBe(0);
    expect(await readdir(out)).toEqual([]);
  });

  it.each([[['demo']], [['diff', 'old', 'new']]])(
    '%j refuses --out "" with exit code 2 and one line',
    async (command) => {
      const run = await runCli([...command, '--out', ''], { cwd: out });
      expect(run.code).toBe(2);
      expect(run.stderr).toBe('img-etl: --out: expected a folder, got ""\n');
      expect(await readdir(out)).toEqual([]);
    },
  );

  it.each([['sec ret'], ['sec\tret'], ['sec\u0007ret'], ['séc'], ['']])(
    'refuses the token %j with exit code 2 and one line that does not show it',
    async (token) => {
      service = await startFixtureService({ records: 10 });
      for (const [args, env] of [
        [['--token', token], {}],
        [[], { IMG_ETL_TOKEN: token }],
      ] as const) {
        const run = await runCli(['--base-url', service.url, '--out', out, ...args], { env });
        expect(run.code).toBe(2);
        const source = args.length === 0 ? ', set by IMG_ETL_TOKEN' : '';
        expect(run.stderr).toBe(
          `img-etl: --token${source}: expected one token of visible ASCII characters, without spaces or ` +
            'control characters (not shown here)\n',
        );
        if (token !== '') expect(run.stderr).not.toContain(token);
      }
      expect(service.stats.requests).toBe(0);
    },
  );

  it.each([
    [{ config: 'other.json' }, 'sets "config": a config file cannot name another one'],
    [{ out: 'x', bogus: 1 }, 'sets "bogus", which is not an option of this command'],
    [{ extends: './base.json' }, 'sets "extends", which is not an option of this command'],
    [{ concurency: 2 }, 'sets "concurency", which is not an option of this command: did you mean "concurrency"?'],
    [{ maxPases: 2 }, 'sets "maxPases", which is not an option of this command: did you mean "maxPasses"?'],
    [{ baseurl: 'x' }, 'sets "baseurl", which is not an option of this command: did you mean "base-url"?'],
    [{ concurrency: '' }, 'sets "concurrency" to ""; expected a number'],
    [{ fresh: 'yes' }, 'sets "fresh" to "yes"; expected true or false'],
    [{ dryRun: 1 }, 'sets "dryRun" to 1; expected true or false'],
  ])('refuses a config file %j with exit code 2 and one line naming it', async (config, reason) => {
    service = await startFixtureService({ records: 10 });
    const path = join(out, 'config.json');
    await writeFile(path, JSON.stringify(config));
    const run = await runCliHere(['--base-url', service.url, '--out', join(out, 'snap'), '--config', path]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`img-etl: --config: ${path} ${reason}\n`);
    expect(service.stats.requests).toBe(0);
  });

  it('names the IMG_ETL_* variable or the config file a refused value came from, not only the option', async () => {
    service = await startFixtureService({ records: 10 });
    const config = join(out, 'config.json');
    await writeFile(config, JSON.stringify({ 'page-size': 0, to: 'xlsx' }));
    const base = ['--base-url', service.url, '--out', join(out, 'snap')];
    const says = (source: string, rest: string) => `img-etl: --concurrency, set by ${source}: ${rest}\n`;
    const notANumber = 'expected a whole number from 1 to 64, got something that is not a number';
    const env = { IMG_ETL_CONCURRENCY: 'abc' };
    expect(await runCli(base, { env })).toMatchObject({ code: 2, stderr: says('IMG_ETL_CONCURRENCY', notANumber) });
    const json = await runCli([...base, '--log-format', 'json'], { env });
    expect(JSON.parse(json.stderr)).toMatchObject({
      message: `--concurrency, set by IMG_ETL_CONCURRENCY: ${notANumber}`,
    });
    const fromFile = await runCli([...base, '--config', config, '--to', 'csv']);
    expect(fromFile.stderr).toBe(
      `img-etl: --page-size, set by --config ${config}: expected a whole number from 1 to 1000, got 0\n`,
    );
    // given on the command line, the option is named as ever
    const given = await runCli([...base, '--concurrency', '0'], { env });
    expect(given.stderr).toBe('img-etl: --concurrency: expected a whole number from 1 to 64, got 0\n');
    expect(service.stats.requests).toBe(0);
  });

  it(
    'takes true and false from the command line, the environment and a config file, and ' + 'a timeout of a day',
    async () => {
      service = await startFixtureService({ records: 10 });
      const path = join(out, 'config.json');
      await writeFile(path, JSON.stringify({ 'max-passes': 2, neutraliseFormulas: false, to: ['csv'] }));
      const run = await runCli(
        ['--base-url', service.url, '--out', join(out, 'snap'), '--config', path, '--fresh=true', '--timeout', '86400'],
        {
          env: { IMG_ETL_QUIET: 'true', IMG_ETL_SNAPSHOT: 'false' },
        },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe(''); // quiet, and no TimeoutOverflowWarning
      const names = (await manifestOf(join(out, 'snap'))).files.map((f: { name: string }) => f.name);
      expect(names).toEqual(['images.csv', 'collections.csv']);
    },
  );
});

describe('--base-url', () => {
  it.each([['the list URL'], ['the list URL without its last slash']])(
    'takes %s as the service: every record, as served',
    async (which) => {
      service = await startFixtureService({ records: 120, seed: 4 });
      const baseUrl = which === 'the list URL' ? service.listUrl : service.listUrl.slice(0, -1);
      const run = await runCliHere(['--base-url', baseUrl, '--out', out, '--quiet', '--page-size', '50']);
      expect(run.code, run.stderr).toBe(0);
      const manifest = await manifestOf();
      expect(manifest).toMatchObject({
        source_url: service.listUrl,
        complete: true,
        records_written: 179,
        pages_fetched: 4,
      });
      const served = [...service.servedRecords()].map((r) => r['id'] as number);
      expectRowsMatch(await readParquetRows(out), expectedRowsOf(service, served));
    },
  );
});

describe('conventions', () => {
  it('--version prints the package version', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const run = await runCli(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${version}\n`);
    expect(run.stderr).toBe('');
  });

  it.each(['diff', 'report'])('%s --help names an older snapshot folder as a --snapshot run names it', async (cmd) => {
    const run = await runCli([cmd, '--help']);
    expect(run.code).toBe(0);
    const names = [...run.stdout.matchAll(/snaps\/(\d{8}T[\d.]+Z)/g)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const [, y, mo, d, h, mi, sec] = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d(?:\.\d+)?)Z$/.exec(name)!;
      expect(snapshotName(new Date(`${y}-${mo}-${d}T${h}:${mi}:${sec}Z`))).toBe(name);
    }
  });

  it('serve --help shows numeric options as numbers with numeric defaults', async () => {
    const run = await runCli(['serve', '--help']);
    expect(run.code).toBe(0);
    const help = run.stdout.replace(/\n {20,}/g, ' '); // yargs wraps a long description onto an indented line
    expect(help).toMatch(/--port +Port to listen on \(0: any free port\) +\[number\] \[default: 8000\]/);
    expect(help).toMatch(/--rate-500 +Probability of Django's HTML 500 page +\[number\] \[default: 0\]/);
    expect(help).toMatch(/--retry-after +Seconds in the Retry-After header of a 429 +\[number\] \[default: 1\]/);
    expect(help).toMatch(/--records +Generated records \(.*\) +\[number\]/);
    expect(help).toMatch(/--host +Address to listen on +\[string\] \[default: "127\.0\.0\.1"\]/);
    expect(help).not.toMatch(/\[default: "\d+(\.\d+)?"\]/); // no number quoted as a string
  });
});

/**
 * Runs the CLI with stdout and stderr each writing into a pipe (a FIFO: a real POSIX pipe of 64 KiB, as a shell's `|`
 * makes; Node's own child pipes are socket pairs that buffer far more) whose reader process takes nothing until told.
 * It is told when the CLI has exited, or (a CLI that waits for its output to be taken does not exit) two seconds after
 * the run's manifest appeared; then it reads everything and hands it over.
 */
async function runIntoSlowReaders(
  args: string[],
  manifest: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const READER = `const fs = require('node:fs');
    const fd = fs.openSync(process.argv[1], 'r');
    process.once('message', () => {
      process.disconnect();
      const chunks = [];
      fs.createReadStream('', { fd })
        .on('data', (c) => chunks.push(c))
        .on('end', () => process.stdout.write(Buffer.concat(chunks)));
    });`;
  const fifos = [join(out, 'stdout.fifo'), join(out, 'stderr.fifo')];
  for (const fifo of fifos) await runFile('mkfifo', [fifo]);
  const readers = fifos.map((fifo) =>
    spawn(process.execPath, ['-e', READER, fifo], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] }),
  );
  const received = readers.map((reader) => {
    const chunks: Buffer[] = [];
    reader.stdout!.on('data', (c: Buffer) => chunks.push(c));
    return new Promise<string>((resolve) => reader.on('close', () => resolve(Buffer.concat(chunks).toString('utf8'))));
  });
  // returns once the reader has opened its end
  const writeEnds = await Promise.all(fifos.map((fifo) => open(fifo, 'w')));
  const cli = spawn(process.execPath, cliArgv(args), { stdio: ['ignore', writeEnds[0]!.fd, writeEnds[1]!.fd] });
  for (const end of writeEnds) await end.close(); // the CLI holds the only write ends now
  let told = false;
  const tell = () => {
    if (told) return;
    told = true;
    for (const reader of readers) reader.send('read');
  };
  const exited = new Promise<number | null>((resolve) => cli.on('exit', (code) => (tell(), resolve(code))));
  void waitForFile(manifest, cli).then(() => setTimeout(tell, 2000));
  const [stdout, stderr] = await Promise.all(received);
  return { code: await exited, stdout: stdout!, stderr: stderr! };
}

/** Resolves once `path` exists, or when `child` exits. */
async function waitForFile(path: string, child: ChildProcess): Promise<void> {
  while (
    child.exitCode === null &&
    !(await stat(path).then(
      () => true,
      () => false,
    ))
  )
    await new Promise((r) => setTimeout(r, 50));
}

describe('output piped to a slow reader', () => {
  it('arrives whole on stdout and stderr: every JSON log line and the JSON summary', async () => {
    // 2,000 records in 1,000 pages: about 165 kB of log
    service = await startFixtureService({ records: 1941, seed: 8 });
    const run = await runIntoSlowReaders(
      ['--base-url', service.url, '--out', out, '--page-size', '2', '--log-format', 'json', '--summary', 'json'],
      join(out, 'manifest.json'),
    );
    expect(run.code).toBe(0);
    const manifest = await manifestOf();
    const lines = run.stderr
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(run.stderr.length).toBeGreaterThan(128 * 1024); // twice what a pipe holds
    const pages = lines.filter((l) => l['event'] === 'page');
    expect(pages.filter((l) => String(l['url']).includes('/api/images/'))).toHaveLength(1000);
    expect(pages).toHaveLength(1000 + manifest.requests.collections); // and the collections list's pages
    expect(lines.at(-1)).toMatchObject({ event: 'publish-end', rows: 2000 });
    const summary = JSON.parse(run.stdout) as SummaryDocument;
    expect(summary).toMatchObject({ complete: true, records: { written: 2000 } });
    expect(summary.duration_seconds).toBeTypeOf('number');
    expect(manifest.records_written).toBe(2000);
  });

  it('arrives whole on stdout: the 1,000 rows demo prints', async () => {
    const run = await runIntoSlowReaders(
      ['demo', '--records', '941', '--rows', '1000', '--out', out],
      join(out, 'latest', 'manifest.json'),
    );
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeGreaterThan(128 * 1024); // twice what a pipe holds
    const preview = run.stdout.slice(run.stdout.indexOf('first 1000 rows:\n'), run.stdout.indexOf('\n\nthen '));
    const rows = preview.split('\n');
    expect(rows).toHaveLength(2 + 1000); // the title, the header, the rows
    const ids = rows.slice(2).map((row) => Number(row.split(/\s+/)[0]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(1000);
  });
});

/**
 * Runs the CLI with its stdout a pipe whose reader has gone (as `img-etl … | head -0`: the reader closed its end
 * before anything was written), stderr collected.
 */
function runIntoClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const cli = spawn(process.execPath, cliArgv(args), { stdio: ['ignore', 'pipe', 'pipe'] });
  cli.stdout.destroy(); // the reader's end, closed: the CLI's first write to stdout fails with EPIPE
  const chunks: Buffer[] = [];
  cli.stderr.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) =>
    cli.on('close', (code) => resolve({ code, stderr: Buffer.concat(chunks).toString('utf8') })),
  );
}

describe('stdout closed by its reader (img-etl … | head -0)', () => {
  it('a complete snapshot still exits 0, with no Node stack trace: the reader wanted no more', async () => {
    service = await startFixtureService();
    const run = await runIntoClosedStdout(['--base-url', service.url, '--out', out, '--quiet']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((await manifestOf()).complete).toBe(true);
  });

  it('diff and files --dry-run exit as they would, with no Node stack trace', async () => {
    service = await startFixtureService();
    expect((await runCliHere(['--base-url', service.url, '--out', out, '--quiet'])).code).toBe(0);
    for (const args of [
      ['diff', out, out, '--out', join(out, 'diff')],
      ['files', out, '--out', join(out, 'maps'), '--dry-run', '--where', 'id = 0'],
    ]) {
      const run = await runIntoClosedStdout(args);
      expect({ args, stderr: run.stderr, code: run.code }).toEqual({ args, stderr: '', code: 0 });
    }
  });
});
