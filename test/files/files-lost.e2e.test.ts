/**
 * A file the listing marks as lost (`file_size` 0) is `missing_on_server`, counted and said, never
 * requested, and does not make the run incomplete (a nightly job selecting one would fail forever); a 404 for a file
 * the listing gives a size still does. The real CLI against the bundled service over loopback HTTP; files.parquet read
 * back by DuckDB.
 */
import { get } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/service/index.js';
import { fileSizeWithin, readFilesTable, type Rec, startSnapshottedService, whereIds } from '../helpers/files-run.js';
import { removeDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';

let service: RunningService;
let root: string;
let snap: string;
let records: Rec[];
const FAST = ['--max-attempts', '2', '--retry-delay', '0.01'];
const byId = (a: Rec, b: Rec): number => (a['id'] as number) - (b['id'] as number);

beforeAll(async () => {
  ({ service, root, snap, records } = await startSnapshottedService({ records: 400, seed: 5 }));
});

afterAll(async () => {
  await service.close();
  await removeDir(root);
});

it('a file of file_size 0 is missing_on_server, counted and said, never requested, and the run exits 0', async () => {
  const lost = records.filter((r) => r['file_size'] === 0).slice(0, 3);
  const good = records.filter(fileSizeWithin(1, 200_000)).slice(0, 2);
  expect(lost.length).toBeGreaterThan(0);
  const chosen = [...good, ...lost].sort(byId);
  const files = chosen.length;
  service.resetStats();
  const run = await runCliHere(['files', snap, '--out', join(root, 'lost'), ...whereIds(chosen), ...FAST, '--quiet']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout.split('\n')[0]).toBe(
    `img-etl files: complete: 2 of ${files} files ok; ${lost.length} lost on the server (file_size 0 in the ` +
      'listing), not fetched',
  );
  expect(run.stdout).toContain(`  problems  missing_on_server ${lost.length}, size_mismatch 0, corrupt 0, failed 0\n`);
  const lostPaths = new Set(lost.map((r) => new URL(r['file'] as string).pathname));
  expect(service.stats.files.log.filter((e) => lostPaths.has(e.path))).toEqual([]);
  const table = await readFilesTable(join(root, 'lost'));
  expect(table.map((row) => [row['id'], row['status'], row['reason']])).toEqual(
    chosen.map((r) => [
      r['id'],
      r['file_size'] === 0 ? 'missing_on_server' : 'ok',
      r['file_size'] === 0 ? 'file_size is 0: the server has lost the file' : null,
    ]),
  );

  const json = await runCliHere(['files', snap, '--out', join(root, 'lost'), ...whereIds(chosen), '--summary', 'json']);
  expect(json.code).toBe(0);
  const summary = JSON.parse(json.stdout) as { complete: boolean; lost: number; counts: Record<string, number> };
  expect([summary.complete, summary.lost, summary.counts['missing_on_server'], summary.counts['ok']]).toEqual([
    true,
    lost.length,
    lost.length,
    2,
  ]);
});

it('a 404 for a file the listing gives a size is missing_on_server and still exits 3', async () => {
  const record = records.filter(fileSizeWithin(1, 200_000))[5]!;
  const port = service.port;
  await service.close();
  // the same address now serves other records: the snapshot's link is a path no record there links to
  service = await startService({ records: 20, seed: 99, port });
  expect(await statusOf(record['file'] as string)).toBe(404);
  const run = await runCliHere(['files', snap, '--out', join(root, 'gone'), ...whereIds([record]), ...FAST, '--quiet']);
  expect(run.code).toBe(3);
  expect(run.stdout.split('\n')[0]).toBe('img-etl files: INCOMPLETE: 0 of 1 files ok');
  const [row] = await readFilesTable(join(root, 'gone'));
  expect([row!['status'], row!['reason']]).toEqual(['missing_on_server', expect.stringContaining('404')]);
});

/** The status a plain GET of `url` gets, on a connection of its own. */
function statusOf(url: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
}
