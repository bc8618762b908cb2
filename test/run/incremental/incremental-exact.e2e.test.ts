/**
 * An incremental `--snapshot` run carries a row over only when it can show the row is what the service serves now, and
 * looks for the records its base never got: its data files equal, byte for byte, those of a `--full` run against the
 * same service, or it says why it cannot and makes a full pass. Real CLI, over loopback HTTP: the bundled service, or a
 * scripted one with the collection endpoints where the bundled service has no knob (a collection the collections list
 * does not show).
 */
import { copyFile, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import { Random } from '../../../src/service/basics/random.js';
import { recordsIn, startCollectionsServer } from '../../helpers/collections-server.js';
import {
  expectExact,
  expectSameDataFiles,
  incrementalFixture,
  manifestOf,
  snapshot,
  snapshotInProcess,
} from '../../helpers/incremental-snapshots.js';
import { runCliHere } from '../../helpers/run-cli.js';
import type { ScriptedServer } from '../../helpers/scripted-server.js';

const { serve, newDir } = incrementalFixture();
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * Collections 1 and 2 (those the collections list shows) and the `extra` records on a scripted service: a `--snapshot`
 * run, `edit`, another run (resolved to, with its requests and manifest), then a `--full` one, whose files it equals.
 */
async function editedBetweenRuns(extra: Record<string, unknown>[], edit: () => void) {
  const records = [...recordsIn(1, 10, 100), ...recordsIn(2, 10, 200), ...extra];
  server = await startCollectionsServer({ records, listed: [1, 2] });
  const [base, full] = [await newDir(), await newDir()];
  const run = (out: string, ...args: string[]) =>
    runCliHere(['--base-url', server!.origin, '--out', out, '--snapshot', '--page-size', '10', ...args]);
  const first = await run(base);
  expect(first.code, first.stderr).toBe(0);
  edit();
  const asked = server.requests.length;
  const again = await run(base);
  expect(again.code, again.stderr).toBe(0);
  const requests = server.requests.slice(asked);
  const manifest = await manifestOf(base);
  expect((await run(full, '--full')).code).toBe(0);
  await expectSameDataFiles(base, full);
  return { again, requests, manifest };
}

describe('rows of a collection the collections list does not show', () => {
  it('are read through its own list, not carried: an edit of one is in the snapshot, as in a full run', async () => {
    const hidden = recordsIn(9, 3, 900); // collection 9 is not in /api/collections/, its images are listed
    // Served from now on by the image list and by collection 9's own list.
    const { requests, manifest } = await editedBetweenRuns(hidden, () => (hidden[1]!['name'] = 'renamed'));
    expect(requests).toContain('/api/collections/9/images/?limit=10&offset=0');
    expect(manifest).toMatchObject({ kind: 'incremental', complete: true, missing: 0 });
  });
});

describe('a record of no collection', () => {
  it('cannot be vouched for by any list: a full pass, said in a line, equal to a full run', async () => {
    const loose: Record<string, unknown> = { ...recordsIn(1, 1, 950)[0]!, collection_id: null }; // in no list
    const { again, manifest } = await editedBetweenRuns([loose], () => (loose['name'] = 'renamed'));
    expect(again.stderr).toMatch(/img-etl: a full pass: the earlier snapshot \S+ cannot be built on: 1 of its records/);
    expect(manifest).toMatchObject({ kind: 'full' });
  });
});

/** A service plan that answers 500 to every page of the image list or of `cid`'s own list holding record `id`. */
async function failingRecord(s: RunningService, id: number) {
  const cid = s.dataset.collectionIdOf(id)!;
  const own = (await (await fetch(`${s.url}/api/collections/${cid}/images/?limit=1000`)).json()) as {
    results: { id: number }[];
  };
  const ownAt = own.results.findIndex((r) => r.id === id);
  expect(ownAt).toBeGreaterThanOrEqual(0);
  let failing = true;
  s.setFaults({
    plan: ({ url }) => {
      const u = new URL(url, 'http://x');
      const offset = Number(u.searchParams.get('offset') ?? 0);
      const limit = Number(u.searchParams.get('limit') ?? 100);
      const at = u.pathname === '/api/images/' ? s.dataset.ids().indexOf(id) : -1;
      const where = u.pathname === `/api/collections/${cid}/images/` ? ownAt : at;
      return failing && where >= offset && where < offset + limit ? '500' : undefined;
    },
  });
  return { cid, served: () => (failing = false) };
}

describe('a record the base never got (it failed in every list)', () => {
  const retries = ['--max-attempts', '2', '--retry-delay', '0.01'];

  it('served again: the next incremental run reads it, as a full run does', async () => {
    const s = await serve(600, 91);
    const [base, full] = [await newDir(), await newDir()];
    const bad = s.dataset.idAt(300);
    const record = await failingRecord(s, bad);
    const first = await snapshot(s, base, '--max-missing', '1', ...retries);
    expect(first.code, first.stderr).toBe(0);
    expect(await manifestOf(base)).toMatchObject({ complete: false, missing: 1 });
    record.served();
    const again = await snapshot(s, base);
    expect(again.code, again.stderr).toBe(0);
    const manifest = await manifestOf(base);
    expect(manifest).toMatchObject({ kind: 'incremental', complete: true, missing: 0 });
    expect(manifest.completeness.reconciled.map((r) => r.id)).toContain(record.cid); // looked for where it was
    await expectExact(s, base);
    expect((await snapshot(s, full, '--full')).code).toBe(0);
    await expectSameDataFiles(base, full);
  });

  it('still failing: the next incremental run looks for it again, counts it missing, as a full run does', async () => {
    const s = await serve(600, 92);
    const [base, full] = [await newDir(), await newDir()];
    await failingRecord(s, s.dataset.idAt(200));
    const first = await snapshot(s, base, '--max-missing', '1', ...retries);
    expect(first.code, first.stderr).toBe(0);
    expect(await manifestOf(base)).toMatchObject({ complete: false, missing: 1 });
    const again = await snapshot(s, base, '--max-missing', '1', ...retries);
    expect(again.code, again.stderr).toBe(0);
    expect(await manifestOf(base)).toMatchObject({ kind: 'incremental', complete: false, missing: 1 });
    expect((await snapshot(s, full, '--full', '--max-missing', '1', ...retries)).code).toBe(0);
    await expectSameDataFiles(base, full);
    // Without --max-missing the run is incomplete, as a full run of the same service is: exit 3, latest kept.
    const strict = await snapshot(s, base, ...retries);
    expect(strict.code, strict.stderr).toBe(3);
  });
});

/** The sha256 of a file, hex. */
const sha256Of = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

describe('a base whose images file was swapped and whose manifest was edited to fit it', () => {
  it('is caught by its images.index as its rows are carried: a full pass, said in a line', async () => {
    const s = await serve(600, 93);
    const [base, full] = [await newDir(), await newDir()];
    await snapshotInProcess(s, base);
    const older = (await readdir(base)).find((n) => /^\d{8}T/.test(n))!;
    s.dataset.edit(5, new Random(14));
    await snapshotInProcess(s, base);
    // The earlier snapshot's images.parquet (the same ids, five records' old values) in the latest, its manifest fit.
    const latest = join(base, 'latest');
    await copyFile(join(base, older, 'images.parquet'), join(latest, 'images.parquet'));
    const path = join(latest, 'manifest.json');
    const manifest = JSON.parse(await readFile(path, 'utf8')) as { files: Record<string, unknown>[] };
    const file = manifest.files.find((f) => f['name'] === 'images.parquet')!;
    file['bytes'] = (await readFile(join(latest, 'images.parquet'))).length;
    file['sha256'] = await sha256Of(join(latest, 'images.parquet'));
    await writeFile(path, JSON.stringify(manifest, null, 2));
    const run = await snapshot(s, base);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/img-etl: a full pass: .*images\.parquet.* does not match its images\.index/);
    const now = await manifestOf(base);
    expect(now).toMatchObject({ kind: 'full', complete: true });
    expect(now.full_because).toMatch(/does not match its images\.index/);
    expect((await snapshot(s, full, '--full')).code).toBe(0);
    await expectSameDataFiles(base, full);
  });

  it('without images.index (its line gone from the manifest too) is no base: a full pass, said in a line', async () => {
    const s = await serve(300, 94);
    const base = await newDir();
    await snapshotInProcess(s, base);
    const path = join(base, 'latest', 'manifest.json');
    const manifest = JSON.parse(await readFile(path, 'utf8')) as { files: { name: string }[] };
    await writeFile(
      path,
      JSON.stringify({ ...manifest, files: manifest.files.filter((f) => f.name !== 'images.index') }),
    );
    await rm(join(base, 'latest', 'images.index'));
    const run = await snapshot(s, base);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/img-etl: a full pass: the earlier snapshot \S+ holds no images\.index/);
    expect(await manifestOf(base)).toMatchObject({ kind: 'full', complete: true });
  });
});
