/**
 * Sixteenth session (resume): a run killed after its second read of the collections list (while it writes), resumed
 * after the service changed, holds the service as it stands at the resumed run's end, not as the killed run left it;
 * and staging dated after the time now (the clock moved back) is not resumed, its age being unknown.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import { expectRowsMatch } from '../../helpers/expected-row.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { killWhen } from '../../helpers/kill-when.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { expectedRowsOf, readParquetRows } from '../../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';

const services: RunningService[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const service of services) await service.close();
  for (const dir of dirs) await removeDir(dir);
});

const args = (service: RunningService, out: string) => [
  '--base-url',
  service.url,
  '--out',
  out,
  '--page-size',
  '20',
  '--concurrency',
  '2',
];

/** A service of 359 records, slow enough to be killed where a test chooses, and a folder for the run. */
async function start(): Promise<{ service: RunningService; out: string }> {
  const service = await startFixtureService({ records: 300, seed: 5, faults: { workers: 2, pageLatencyMs: 30 } });
  services.push(service);
  const out = await tempDir();
  dirs.push(out);
  return { service, out };
}

describe('a run killed after its second read of the collections list, resumed after the service changed', () => {
  // A record deleted after the pass is left out, as its collection's own list no longer serves it, and the count asked
  // once more no longer names it: complete, as in a run not interrupted (count-after-gone.ts).
  it.each([
    ['edit', 0],
    ['delete', 0],
    ['insert', 0],
  ] as const)('a record changed meanwhile (%s): the resumed snapshot is the service at its end', async (kind, code) => {
    const { service, out } = await start();
    await killWhen(args(service, out), out, (e) => e.some((x) => x.type === 'collections-end' && x.round === 2));
    const changed = service.change({ kind, collections: 1, seed: 7 });
    expect(changed.records).toHaveLength(1);
    const resumed = await runCliHere(args(service, out));
    expect(resumed.code, resumed.stderr).toBe(code);
    expect(resumed.stderr).not.toMatch(/discarded/); // it did resume: the sample checked does not show one record
    expect(await readManifest(out)).toMatchObject({ complete: code === 0, missing: code === 0 ? 0 : 1 });
    const rows = await readParquetRows(out);
    const ids = rows.map((r) => Number(r['id']));
    // Before: the edited record in its old copy, the deleted one kept, the inserted one missing, and complete.
    expect(ids.slice().sort((a, b) => a - b)).toEqual(service.servedIds().sort((a, b) => a - b));
    expectRowsMatch(rows, expectedRowsOf(service, ids));
  });
});

describe('staging dated after the time now (the clock moved back since it was written)', () => {
  it('is discarded with a notice and the run starts afresh: its age is unknown', async () => {
    const { service, out } = await start();
    await killWhen(args(service, out), out, (e) => e.filter((x) => x.type === 'page').length >= 6);
    const runJson = join(out, '.img-etl-staging', 'run.json');
    const identity = JSON.parse(await readFile(runJson, 'utf8')) as { started_at: string };
    await writeFile(runJson, JSON.stringify({ ...identity, started_at: '2099-01-01T00:00:00.000Z' }) + '\n');
    service.resetStats();
    const rerun = await runCliHere(args(service, out));
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain('holds a run started 2099-01-01T00:00:00.000Z, after the time now (');
    expect(rerun.stderr).toMatch(/its age is unknown; discarded it and started afresh/);
    // Before: resumed, its staged pages taken as they were.
    expect(service.stats.listRequests).toBe(Math.ceil(service.dataset.size / 20));
    expect(service.stats.detailRequests).toBe(0);
  });
});
