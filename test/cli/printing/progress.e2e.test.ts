/**
 * Progress and the summary on the command line: progress on stderr in each mode (a bar on a terminal — run through a
 * pseudo-terminal —, plain lines in a pipe, nothing with --quiet, JSON lines with --log-format json) and the summary on
 * stdout as text or JSON. The real CLI against the bundled service over loopback HTTP, slowed down so that progress has
 * time to show.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SummaryDocument } from '../../../src/cli/printing/summary.js';
import type { RunningService } from '../../../src/service/index.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { cliArgv, runCliHere, type CliRun } from '../../helpers/run-cli.js';

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

/** 1,059 records in pages of 20, one at a time with 20 ms each: a run of about a second. */
async function slowService(): Promise<RunningService> {
  service = await startFixtureService({ records: 1000, seed: 21, faults: { workers: 1, pageLatencyMs: 20 } });
  return service;
}
const slowArgs = (s: RunningService) => ['--base-url', s.url, '--out', out, '--page-size', '20'];
const manifestOf = () => readManifest(out);
/** Every key of a parsed JSON value, nested objects and arrays included. */
const keysOf = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.flatMap(keysOf)
    : typeof value === 'object' && value !== null
      ? Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)])
      : [];

/**
 * Runs a command on a pseudo-terminal 120 columns wide (stdin, stdout and stderr all on it) and returns what the
 * terminal received. Python's pty module: on the machine and in CI, no package needed.
 */
const PTY = `
import fcntl, os, pty, struct, sys, termios
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 120, 0, 0))
seen = bytearray()
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:  # EIO: the child closed the terminal
        break
    if not chunk:
        break
    seen += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(bytes(seen))
sys.exit(os.waitstatus_to_exitcode(status))
`;
function runOnTerminal(args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      'python3',
      ['-c', PTY, process.execPath, ...cliArgv(args)],
      { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      },
    );
  });
}

/** The bar's redraws: a carriage return, the line, then erase-to-end-of-line. */
const redraws = (text: string) => [...text.matchAll(/\r([^\r\n\x1b]+)\x1b\[K/g)].map((m) => m[1]!);
const BAR = /^\[[#.]{24}\] \d+\.\d% [\d,]+\/1,059 records, [\d,]+\/53 pages, [\d,]+ rec\/s, eta (\d+ s|-)$/;
const PLAIN = /^img-etl: pass 1: (\d+\.\d)% ([\d,]+)\/1,059 records, ([\d,]+)\/53 pages, [\d,]+ rec\/s, eta (\d+ s|-)$/;

describe('progress on stderr', () => {
  it('on a terminal: a bar redrawn in place with records, pages, rate and ETA, cleared for the summary', async () => {
    const s = await slowService();
    const run = await runOnTerminal([...slowArgs(s), '--to', 'csv']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const screen = run.stdout;
    expect(redraws(screen)[0]).toBe('[........................] waiting for the first page');
    const bars = redraws(screen).filter((line) => line.startsWith('[') && line.includes('records'));
    expect(bars.length).toBeGreaterThanOrEqual(3);
    for (const bar of bars) expect(bar).toMatch(BAR);
    expect(bars.some((bar) => /^\[[#.]{24}\] (?!0\.0%)/.test(bar))).toBe(true);
    expect(bars.some((bar) => / eta \d+ s$/.test(bar))).toBe(true);
    expect(redraws(screen).some((line) => /^writing csv \[[#.]{24}\] \d+\.\d% [\d,]+\/1,059 records/.test(line))).toBe(
      true,
    );
    // The last bar drawn, once the files are written, says so (never "0.0% … eta -").
    expect(redraws(screen).at(-1)).toMatch(
      /^writing csv \[#{24}\] 100\.0% 1,059\/1,059 records, [\d,]+ rec\/s, eta 0 s$/,
    );
    // The bar is erased before the summary, which ends the screen (the terminal turns \n into \r\n).
    expect(screen).toMatch(
      /\r\x1b\[Kimg-etl: complete snapshot of http:\/\/127\.0\.0\.1:\d+\/api\/images\/\r\n {2}records {3}1059 written, 0 rejected; the service counts 1059: 0 missing/,
    );
    expect(screen.trimEnd().split('\r\n').at(-1)).toBe(`  manifest  ${join(out, 'manifest.json')}`);
  });

  it(
    'in a pipe: a plain line at the first page and then one every --progress-interval, ' + 'never a carriage return',
    async () => {
      const s = await slowService();
      const run = await runCliHere([...slowArgs(s), '--to', 'csv', '--progress-interval', '0.2']);
      expect(run.code).toBe(0);
      expect(run.stderr).not.toMatch(/[\r\x1b]/);
      const lines = run.stderr.trimEnd().split('\n');
      const progress = lines.filter((line) => line.startsWith('img-etl: pass 1: '));
      for (const line of progress) expect(line).toMatch(PLAIN);
      expect(progress.length).toBeGreaterThanOrEqual(3);
      // Lines come with time, not with pages: fewer lines than pages.
      expect(progress.length).toBeLessThan((await manifestOf()).pages_fetched);
      const records = progress.map((line) => Number(PLAIN.exec(line)![2]!.replace(/,/g, '')));
      expect(records).toEqual([...records].sort((a, b) => a - b));
      expect(lines).toContain('img-etl: writing 1,059 records as csv');
      expect(run.stdout).toMatch(/^img-etl: complete snapshot of /);
    },
  );

  it(
    'in a pipe, by default: a line at the first page, then one every 10 s (none in a run ' + 'of about a second)',
    async () => {
      const s = await slowService();
      const run = await runCliHere([...slowArgs(s), '--to', 'csv']);
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(
        /^img-etl: pass 1: 1\.9% 20\/1,059 records, 1\/53 pages, [\d,]+ rec\/s, eta (\d+ s|-)\nimg-etl: reading the collections list http:\/\/127\.0\.0\.1:\d+\/api\/collections\/ again\nimg-etl: 34 of 34 collections listed in 1 pass\nimg-etl: writing 1,059 records as csv\n$/,
      );
    },
  );

  it('--quiet: nothing on stderr when the run succeeds; the summary still goes to stdout', async () => {
    service = await startFixtureService({ records: 1000, seed: 21 });
    const run = await runCliHere([
      '--base-url',
      service.url,
      '--out',
      out,
      '--page-size',
      '20',
      '--to',
      'csv',
      '--quiet',
      '--progress-interval',
      '0.1',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('1059 written, 0 rejected; the service counts 1059: 0 missing');
  });

  it('--quiet still reports the error that ends a run', async () => {
    const run = await runCliHere(['--base-url', 'http://127.0.0.1:9', '--out', out, '--quiet', '--max-attempts', '1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^img-etl: extract: GET http:\/\/127\.0\.0\.1:9\/api\/collections\/\?limit=1000&offset=0 failed \([^)]*ECONNREFUSED[^)]*\); check --base-url\n$/,
    );
  });

  it(
    '--log-format json: every stderr line is an object with ts, ' + 'level and event: pages, passes, publishing',
    async () => {
      // Records deleted while it pages shift the list under pass 1, so a second pass runs: a copy of the image list
      // alone (no collection endpoints to reconcile through) proves completeness by passes.
      const faults = { workers: 1, pageLatencyMs: 5, deleteRate: 0.3, faultSeed: 3 };
      service = await startFixtureService({ records: 600, seed: 22, collectionEndpoints: false, faults });
      const run = await runCliHere([
        '--base-url',
        service.url,
        '--out',
        out,
        '--page-size',
        '50',
        '--to',
        'parquet,csv',
        '--log-format',
        'json',
      ]);
      expect(run.code).toBe(0);
      const lines = run.stderr
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      for (const line of lines) {
        expect(line['ts']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(['info', 'warn']).toContain(line['level']);
        expect(typeof line['event']).toBe('string');
        // snake_case, as in the manifest
        expect(keysOf(line).filter((key) => !/^[a-z][a-z0-9_]*$/.test(key))).toEqual([]);
      }
      const manifest = await manifestOf();
      const of = (event: string) => lines.filter((line) => line['event'] === event);
      expect(manifest.passes.length).toBeGreaterThanOrEqual(2);
      expect(of('page')).toHaveLength(manifest.pages_fetched);
      expect(of('page')[0]).toMatchObject({
        level: 'info',
        url: `${service.listUrl}?limit=50&offset=0`,
        offset: 0,
        records: 50,
      });
      expect(of('pass-start').map((line) => line['pass'])).toEqual(
        manifest.passes.map((p: { pass: number }) => p.pass),
      );
      expect(of('pass-start')[1]).toMatchObject({ pass: 2, max_passes: 3, pages_done: 0, records_done: 0 });
      expect(of('pass-end').map((line) => [line['pass'], line['added'], line['clean']])).toEqual(
        manifest.passes.map((p: { pass: number; added: number; clean: boolean }) => [p.pass, p.added, p.clean]),
      );
      expect(of('publish-start')).toEqual([
        expect.objectContaining({ records: manifest.received, formats: ['parquet', 'csv'] }),
      ]);
      expect(of('publish-progress').at(-1)).toMatchObject({ rows: manifest.records_written, rejects: 0 });
      expect(of('publish-end')).toEqual([
        expect.objectContaining({
          rows: manifest.records_written,
          files: manifest.files.map((f: { name: string; format: string; rows: number; bytes: number }) => ({
            name: f.name,
            format: f.format,
            rows: f.rows,
            bytes: f.bytes,
          })),
        }),
      ]);
      // Events come in the order of the run: the collections list (answered 404 here), passes, then publishing.
      const order = lines.map((line) => line['event']).filter((e) => e !== 'page' && e !== 'publish-progress');
      const passes = manifest.passes.flatMap(() => ['pass-start', 'pass-end']);
      expect(order).toEqual(['collections-start', 'collections-end', ...passes, 'publish-start', 'publish-end']);
      expect(of('collections-end')).toEqual([expect.objectContaining({ level: 'warn', status: 404, received: 0 })]);
      expect(run.stdout).toMatch(/^img-etl: complete snapshot of /);
    },
  );

  it('--log-format json: the error that ends the run is a JSON line too', async () => {
    const run = await runCliHere([
      '--base-url',
      'http://127.0.0.1:9',
      '--out',
      out,
      '--log-format',
      'json',
      '--max-attempts',
      '1',
    ]);
    expect(run.code).toBe(1);
    const lines = run.stderr
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.at(-1)).toMatchObject({
      level: 'error',
      event: 'error',
      code: 'NETWORK',
      url: 'http://127.0.0.1:9/api/collections/?limit=1000&offset=0', // the collections list is read first
      exit_code: 1,
    });
    expect(lines.at(-1)!['message']).toMatch(
      /^extract: GET http:\/\/127\.0\.0\.1:9\/api\/collections\/\?limit=1000&offset=0 failed \(.*ECONNREFUSED/,
    );
  });
});

describe('summary on stdout', () => {
  it(
    '--summary json: one document with records, files (name, bytes, rows, sha256), ' + 'duration and completeness',
    async () => {
      service = await startFixtureService({ records: 300, seed: 23 });
      const run = await runCliHere([
        '--base-url',
        service.url,
        '--out',
        out,
        '--to',
        'parquet,arrow,csv',
        '--summary',
        'json',
        '--quiet',
        '--page-size',
        '100',
      ]);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      const summary = JSON.parse(run.stdout) as SummaryDocument;
      const manifest = await manifestOf();
      expect(summary).toMatchObject({
        complete: true,
        source_url: service.listUrl,
        started_at: manifest.started_at,
        finished_at: manifest.finished_at,
        records: { written: 359, expected: 359, received: 359, missing: 0, duplicates_dropped: 0, rejects: 0 },
        pages: { fetched: 4, page_size: 100, passes: 1, retries: 0, skipped_offsets: [] },
        collections: { written: service.dataset.collections.publicCount, rejects: 0 },
        manifest: join(out, 'manifest.json'),
      });
      expect(summary.duration_seconds).toBe(
        (Date.parse(manifest.finished_at) - Date.parse(manifest.started_at)) / 1000,
      );
      expect(summary.files.map((f: { name: string }) => f.name).sort()).toEqual([
        'collections.arrow',
        'collections.csv',
        'collections.parquet',
        'images.arrow',
        'images.csv',
        'images.parquet',
      ]);
      for (const file of summary.files) {
        expect(file.path).toBe(join(out, file.name));
        const bytes = await readFile(file.path);
        expect(file.bytes).toBe((await stat(file.path)).size);
        expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
        expect(file.rows).toBe(file.name.startsWith('collections.') ? service.dataset.collections.publicCount : 359);
      }
    },
  );

  it('--summary json with --snapshot names the latest link', async () => {
    service = await startFixtureService({ records: 10, seed: 24 });
    const run = await runCliHere([
      '--base-url',
      service.url,
      '--out',
      out,
      '--snapshot',
      '--summary',
      'json',
      '--quiet',
    ]);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as SummaryDocument;
    const latest = summary.latest!;
    expect(latest.link).toBe(join(out, 'latest'));
    expect(summary.manifest).toBe(join(out, latest.target, 'manifest.json'));
    expect(summary.files[0]!.path).toBe(join(out, latest.target, 'images.parquet'));
  });
});
