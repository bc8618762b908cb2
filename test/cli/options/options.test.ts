/** The command line's output options: --help shows them with defaults; a bad value exits 2 with one line. */
import { readdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCli, runCliHere } from '../../helpers/run-cli.js';

let out: string;
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await removeDir(out);
});

describe('output options', () => {
  it(
    '--help lists --quiet, --log-format, --summary, --progress-interval and --dry-run ' + 'with their defaults',
    async () => {
      const run = await runCli(['--help']);
      expect(run.code).toBe(0);
      const help = run.stdout.replace(/\n {20,}/g, ' '); // yargs wraps a long description onto an indented line
      expect(help).toMatch(/--quiet +No progress on stderr, errors only \(for cron\) +\[boolean\] \[default: false\]/);
      expect(help).toMatch(/--log-format +stderr: text \(.*\) or json \(.*\) +\[string\] \[default: "text"\]/);
      expect(help).toMatch(/--summary +The summary on stdout: text, or json \(.*\) +\[string\] \[default: "text"\]/);
      expect(help).toMatch(
        /--progress-interval +Seconds between progress lines when stderr is not a terminal +\[number\] \[default: 10\]/,
      );
      expect(help).toMatch(
        /--dry-run +Read the first page of the image and collections lists only and print the plan: .* +\[boolean\] \[default: false\]/,
      );
    },
  );

  it('--help says when --keep prunes and what --max-passes is for, as the code does', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    const help = run.stdout.replace(/\n {20,}/g, ' '); // yargs wraps a long description onto an indented line
    // pruneSnapshots runs after a complete run and after an incomplete one (exit 3) alike, and counts complete ones.
    expect(help).toMatch(
      /--keep +With --snapshot: keep the newest N complete snapshots, .*\(exit 0 or 3\) +\[number\]/,
    );
    // Only a service without /api/collections/ gets further passes; with it, one pass and reconciliation.
    expect(help).toMatch(/--max-passes +.*without the collection endpoints.* +\[number\] \[default: 3\]/);
  });

  it.each([
    [['--log-format', 'xml'], {}, 'img-etl: --log-format: expected text or json, got "xml"'],
    [['--summary', 'yaml'], {}, 'img-etl: --summary: expected text or json, got "yaml"'],
    [['--progress-interval', '0'], {}, 'img-etl: --progress-interval: expected a positive number of seconds, got 0'],
    [
      ['--progress-interval', 'soon'],
      {},
      'img-etl: --progress-interval: expected a positive number of seconds, got something that is not a number',
    ],
    [
      [],
      { IMG_ETL_LOG_FORMAT: 'xml' },
      'img-etl: --log-format, set by IMG_ETL_LOG_FORMAT: expected text or json, got "xml"',
    ],
    [
      [],
      { IMG_ETL_PARQUET_ENGINE: 'fast' },
      'img-etl: --parquet-engine, set by IMG_ETL_PARQUET_ENGINE: expected wasm or parquetjs, got "fast"',
    ],
    [
      [],
      { IMG_ETL_PROGRESS_INTERVAL: '-1' },
      'img-etl: --progress-interval, set by IMG_ETL_PROGRESS_INTERVAL: expected a positive number of seconds, got -1',
    ],
  ])('refuses %j %j with exit code 2 and one line, before any request', async (args, env, message) => {
    const run = await runCli([...args, '--base-url', 'http://127.0.0.1:9', '--out', out], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`${message}\n`);
    expect(run.stdout).toBe('');
    expect(await readdir(out)).toEqual([]);
  });

  it('with --log-format json, a bad value of another option is a JSON line with exit code 2', async () => {
    const run = await runCliHere([
      '--log-format',
      'json',
      '--max-missing',
      '-1',
      '--base-url',
      'http://127.0.0.1:9',
      '--out',
      out,
    ]);
    expect(run.code).toBe(2);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const { ts, ...line } = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(line).toEqual({
      level: 'error',
      event: 'error',
      message: '--max-missing: expected a whole number from 0, got -1',
      exit_code: 2,
    });
    expect(await readdir(out)).toEqual([]);
  });
});
