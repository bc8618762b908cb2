/**
 * `img-etl files` takes the options every command takes: `--log-format json` (one JSON object per line on stderr,
 * fields in snake_case, like a snapshot's log) and `--config` (a JSON file of the command's options; the command line
 * wins, an unknown key is refused with exit code 2).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import {
  fileSizeWithin,
  readFilesTable,
  type Rec,
  servedBytes,
  sha256,
  startSnapshottedService,
  whereIds,
} from '../helpers/files-run.js';
import { removeDir } from '../helpers/readers.js';
import { runCli, runCliHere } from '../helpers/run-cli.js';

let service: RunningService;
let root: string;
let snap: string;
let records: Rec[];
let counter = 0;
const fresh = (): string => join(root, `out-${++counter}`);
const small = fileSizeWithin(1, 200_000);

beforeAll(async () => {
  ({ service, root, snap, records } = await startSnapshottedService({ records: 150, seed: 41 }));
});

afterAll(async () => {
  await service.close();
  await removeDir(root);
});

/** stderr as JSON lines; every line must be one object with `ts`, `level` and `event`. */
function jsonLines(stderr: string): Record<string, unknown>[] {
  const lines = stderr.split('\n').filter((line) => line !== '');
  return lines.map((line) => {
    const record = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(record).slice(0, 3), line).toEqual(['ts', 'level', 'event']);
    expect(new Date(record['ts'] as string).toISOString()).toBe(record['ts']);
    return record;
  });
}

it('--log-format json: the plan, each file settled and each retry as a JSON line, fields in snake_case', async () => {
  const good = records.filter(small).slice(0, 2);
  const lost = records.find((r) => r['file_size'] === 0)!;
  const retried = good[1]!;
  const retriedPath = new URL(retried['file'] as string).pathname;
  let cut = false;
  service.setFaults({
    filePlan: (request) => (request.path === retriedPath && !cut ? ((cut = true), 'truncate') : undefined),
  });
  const out = fresh();
  const chosen = [...good, lost];
  const run = await runCliHere([
    'files',
    snap,
    '--out',
    out,
    ...whereIds(chosen),
    '--log-format',
    'json',
    '--retry-delay',
    '0.01',
  ]);
  service.setFaults({ filePlan: undefined });
  expect(run.code).toBe(0); // the lost file (file_size 0) does not make the run incomplete
  const lines = jsonLines(run.stderr);
  expect(lines[0]).toMatchObject({
    level: 'info',
    event: 'plan',
    files: 3,
    bytes: good.reduce((n, r) => n + (r['file_size'] as number), 0),
  });
  const retry = lines.filter((l) => l['event'] === 'retry');
  expect(retry).toHaveLength(1);
  expect(retry[0]).toMatchObject({ level: 'warn', url: retried['file'], attempt: 1 });
  expect(typeof retry[0]!['delay_ms']).toBe('number');
  expect(retry[0]!['reason']).toContain('truncated');
  const files = lines.filter((l) => l['event'] === 'file').sort((a, b) => (a['id'] as number) - (b['id'] as number));
  const table = await readFilesTable(out);
  expect(files).toHaveLength(3);
  for (const [i, line] of files.entries()) {
    const row = table[i]!;
    const { ts: _ts, ...fields } = line;
    expect(fields).toEqual({
      level: row['status'] === 'ok' ? 'info' : 'warn',
      event: 'file',
      id: row['id'],
      collection_id: row['collection_id'],
      link: 'file',
      url: row['url'],
      path: row['path'],
      bytes: row['bytes'],
      sha256: row['sha256'],
      status: row['status'],
      reason: row['reason'],
      fetched: row['status'] === 'ok',
    });
  }
  expect(files.map((l) => [l['id'], l['status']])).toEqual(
    [...chosen]
      .sort((a, b) => (a['id'] as number) - (b['id'] as number))
      .map((r) => [r['id'], r === lost ? 'missing_on_server' : 'ok']),
  );
  expect(lines.map((l) => l['event']).filter((e) => !['plan', 'file', 'retry'].includes(e as string))).toEqual([]);
});

it('--log-format json: quiet writes nothing on success; a bad command line: one coded error line, exit 2', async () => {
  const [record] = records.filter(small);
  const quiet = await runCliHere([
    'files',
    snap,
    '--out',
    fresh(),
    ...whereIds([record!]),
    '--log-format',
    'json',
    '--quiet',
  ]);
  expect(quiet.code).toBe(0);
  expect(quiet.stderr).toBe('');
  const bad = await runCliHere([
    'files',
    snap,
    '--out',
    fresh(),
    '--where',
    'no_such_column = 1',
    '--log-format',
    'json',
  ]);
  expect(bad.code).toBe(2);
  const [line, ...rest] = jsonLines(bad.stderr);
  expect(rest).toEqual([]);
  // docs/json-log.md: the files command's error line has `message`, `exit_code` and the stable `code`.
  expect(line).toMatchObject({ level: 'error', event: 'error', exit_code: 2, code: 'FILES_BAD_WHERE' });
  expect(line!['message']).toContain('no column "no_such_column"');
});

it('--config: options from a JSON file, the command line winning; an unknown key refused (exit 2)', async () => {
  const chosen = records.filter(small).slice(0, 3);
  const config = join(root, 'files.json');
  const out = fresh();
  const where = `id in (${chosen.map((r) => String(r['id'])).join(', ')})`;
  await writeFile(config, JSON.stringify({ out, where: [where], concurrency: 3, summary: 'json', quiet: true }));
  const run = await runCliHere(['files', snap, '--config', config]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const summary = JSON.parse(run.stdout) as { complete: boolean; selected: { files: number } };
  expect([summary.complete, summary.selected.files]).toEqual([true, 3]);
  const table = await readFilesTable(out);
  expect(table.map((row) => row['id'])).toEqual(chosen.map((r) => r['id']).sort((a, b) => Number(a) - Number(b)));
  for (const row of table)
    expect(row['sha256']).toBe(sha256(await servedBytes(chosen.find((r) => r['id'] === row['id'])!['file'] as string)));

  const text = await runCliHere(['files', snap, '--config', config, '--summary', 'text']);
  expect(text.code).toBe(0);
  expect(text.stdout).toContain('img-etl files: complete: 3 of 3 files ok');
  expect(text.stdout).toContain('3 kept from disk'); // the same --out, from the file

  // The IMG_ETL_* variables are a snapshot's options: they neither break files nor change its folder or selection.
  const env = { IMG_ETL_OUT: join(root, 'elsewhere'), IMG_ETL_TO: 'csv', IMG_ETL_CONCURRENCY: '1' };
  const withEnv = await runCli(['files', snap, '--config', config, '--summary', 'text'], { env });
  expect(withEnv.stderr).toBe('');
  expect(withEnv.code).toBe(0);
  expect(withEnv.stdout).toContain(`3 kept from disk`);

  const unknown = join(root, 'unknown.json');
  await writeFile(unknown, JSON.stringify({ out: fresh(), 'page-size': 10 }));
  const refused = await runCliHere(['files', snap, '--config', unknown]);
  expect(refused.code).toBe(2);
  expect(refused.stderr.trim().split('\n')).toEqual([
    `img-etl: --config: ${unknown} sets "page-size", which is not an option of this command`,
  ]);
});

it("--help's --config example is a file files accepts: run in a folder, it plans the selection (exit 0)", async () => {
  const help = await runCli(['files', '--help']);
  expect(help.code).toBe(0);
  const example = /--config +A JSON file of options, .*?\(e\.g\. (\{.*?\})\)/.exec(
    help.stdout.replace(/\n {20,}/g, ' '), // yargs wraps a long description onto an indented line
  )?.[1];
  expect(example).toBeDefined();
  const cwd = fresh();
  await mkdir(cwd);
  await writeFile(join(cwd, 'example.json'), example!);
  const run = await runCli(['files', snap, '--config', 'example.json', '--dry-run'], { cwd });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^img-etl files \(dry run\): \d+ files/);
});

it('--verify=yes is refused (exit 2), not read as --verify=false', async () => {
  const out = fresh();
  const run = await runCliHere(['files', snap, '--out', out, '--dry-run', '--verify=yes', '--base-url', service.url]);
  expect(run.stderr).toBe('img-etl: --verify: expected true or false, got "yes"\n');
  expect(run.code).toBe(2);
});

it.each([
  [['--concurrency', '--dry-run'], 'concurrency'],
  [['--dry-run', '--summary'], 'summary'],
  [['--timeout', '--dry-run'], 'timeout'],
])('%j is a usage error naming the option, as for a snapshot (yargs would use its default)', async (args, name) => {
  const run = await runCliHere(['files', snap, '--out', fresh(), '--base-url', service.url, ...args]);
  expect(run.stderr).toBe(`img-etl: Not enough arguments following: ${name}\n`);
  expect(run.code).toBe(2);
});
