/**
 * How an incremental `--snapshot` run builds on its base: a base's files are trusted only as its manifest
 * lists them. A data file the base's manifest does not list (a file of someone's, another snapshot's copied in) is
 * never read as the base's rows or collections: the run writes what a `--full` run of the same service writes.
 */
import { copyFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Random } from '../../../src/service/basics/random.js';
import type { RunningService } from '../../../src/service/index.js';
import {
  BAD_IDS,
  expectExact,
  expectSameDataFiles,
  incrementalFixture,
  manifestOf,
  snapshot,
  snapshotInProcess,
} from '../../helpers/incremental-snapshots.js';
import { runCliHere } from '../../helpers/run-cli.js';

const { serve, newDir } = incrementalFixture();

/** A `--snapshot` run into `base` writing `to`. */
const snap = (s: RunningService, base: string, to: string, ...args: string[]) =>
  runCliHere(['--base-url', s.url, '--out', base, '--snapshot', '--to', to, '--page-size', '100', ...args]);

describe('a base snapshot holding a data file its manifest does not list', () => {
  it('an images.parquet beside the images.arrow it lists is not read as its rows', async () => {
    const s = await serve(600, 81);
    const [stale, base, full] = [await newDir(), await newDir(), await newDir()];
    // The two snapshots the case starts from, taken by the library as the CLI takes them (snap's arguments).
    await snapshotInProcess(s, stale, { formats: ['parquet'] }); // the records before the edits
    s.dataset.edit(5, new Random(7));
    await snapshotInProcess(s, base, { formats: ['arrow'] });
    // Someone's images.parquet (an older snapshot's) in the base snapshot, which lists images.arrow only.
    await copyFile(join(stale, 'latest', 'images.parquet'), join(base, 'latest', 'images.parquet'));
    const run = await snap(s, base, 'arrow');
    expect(run.code, run.stderr).toBe(0);
    expect((await snap(s, full, 'arrow', '--full')).code).toBe(0);
    await expectSameDataFiles(base, full);
  });

  it('a collections.parquet beside the collections.arrow it lists is not read as its collections', async () => {
    const s = await serve(600, 82);
    const [base, fresh, full] = [await newDir(), await newDir(), await newDir()];
    // The two snapshots the case starts from, taken by the library as the CLI takes them (snap's arguments).
    await snapshotInProcess(s, base, { formats: ['arrow'] });
    s.dataset.edit(5, new Random(8));
    await snapshotInProcess(s, fresh, { formats: ['parquet'] }); // the collections after the edits
    // A collections.parquet that says no collection changed, in the base snapshot, which lists collections.arrow only.
    await copyFile(join(fresh, 'latest', 'collections.parquet'), join(base, 'latest', 'collections.parquet'));
    const run = await snap(s, base, 'arrow');
    expect(run.code, run.stderr).toBe(0);
    expect((await snap(s, full, 'arrow', '--full')).code).toBe(0);
    await expectSameDataFiles(base, full);
    expect(await manifestOf(base)).toMatchObject({ complete: true });
  });
});

describe('rejects of the collections an incremental run reads', () => {
  it('a reject edited, and one whose collection changed, are written as a full run writes them', async () => {
    const s = await serve(600, 83);
    const [base, full] = [await newDir(), await newDir()];
    await snapshotInProcess(s, base); // the base the run below builds on
    const random = new Random(9);
    s.dataset.editId(BAD_IDS[0]!, random);
    const other = s.dataset.collectionIdOf(BAD_IDS[1]!)!;
    const neighbour = s.servedIds().find((id) => id !== BAD_IDS[1] && s.dataset.collectionIdOf(id) === other);
    if (neighbour !== undefined) s.dataset.editId(neighbour, random);
    else s.dataset.editId(BAD_IDS[1]!, random);
    const run = await snapshot(s, base);
    expect(run.code, run.stderr).toBe(0);
    expect(await manifestOf(base)).toMatchObject({ kind: 'incremental', complete: true, rejects: 2 });
    await expectExact(s, base);
    expect((await snapshot(s, full, '--full')).code).toBe(0);
    await expectSameDataFiles(base, full);
  });
});

describe('the manifest of an incremental run', () => {
  // The report's fill chart splits each column's nulls by these counts (docs/report.md): they describe the rows the
  // snapshot holds, carried over or read, not only the rows the run read (the base's files keep the nulls, not whether
  // each was served, a sentinel or an empty string). A --snapshot run keeps its counts per collection in
  // normalisation.json, and the next run adds those of the collections it carries over.
  let incremental: Awaited<ReturnType<typeof manifestOf>>;
  let fromFull: Awaited<ReturnType<typeof manifestOf>>;
  beforeAll(async () => {
    const s = await serve(600, 84);
    const [base, full] = [await newDir(), await newDir()];
    await snapshotInProcess(s, base); // the base the run below builds on
    s.dataset.edit(3, new Random(10));
    const run = await snapshot(s, base);
    expect(run.code, run.stderr).toBe(0);
    incremental = await manifestOf(base);
    expect(incremental).toMatchObject({ kind: 'incremental', complete: true });
    expect((await snapshot(s, full, '--full')).code).toBe(0);
    fromFull = await manifestOf(full);
    expect(incremental.records_written).toBe(fromFull.records_written);
  });

  it('gives the normalisation counts of a full run of the same service', () => {
    expect(incremental.normalisation).toEqual(fromFull.normalisation);
  });
});

describe('an incremental run of a pipeline with a derived column', () => {
  it('writes the bytes of a full run of that pipeline', async () => {
    const s = await serve(600, 85);
    const [base, full] = [await newDir(), await newDir()];
    const options = ['--base-url', s.url, '--snapshot', '--page-size', '100'];
    const run = (out: string, ...args: string[]) =>
      runCliHere(['run', 'derived-columns', ...options, '--out', out, ...args]);
    expect((await run(base)).code).toBe(0);
    const random = new Random(11);
    s.dataset.edit(3, random);
    s.dataset.insert(3, random);
    s.dataset.delete(2, random);
    const again = await run(base);
    expect(again.code, again.stderr).toBe(0);
    expect(await manifestOf(base)).toMatchObject({ kind: 'incremental', complete: true });
    expect((await run(full, '--full')).code).toBe(0);
    await expectSameDataFiles(base, full);
  });
});

describe('a collection an incremental run read, changed again before the second read of the collections list', () => {
  // The change is made before the run's second read of the collections list, which sees it (its modify_date moved):
  // docs/completeness.md says what a run cannot see is a change made after that read. The run read it before the
  // change and did not read it again (failed before: the snapshot kept the copy read before the edit and its
  // collections table the date after it, so the next incremental run carried the stale copy over too): it makes a
  // full pass now, which reads such a collection after the second read.
  it('makes a full pass: the snapshot holds the record as served at the end, and so does the next run', async () => {
    const s = await serve(600, 86);
    const base = await newDir();
    await snapshotInProcess(s, base); // the base the run below reads
    const random = new Random(12);
    const [first] = s.dataset.edit(1, random);
    const cid = s.dataset.collectionIdOf(first!)!;
    let read = false;
    let edited: number | undefined;
    s.setFaults({
      plan: ({ url }) => {
        if (url.startsWith(`/api/collections/${cid}/images/`)) read = true;
        else if (read && edited === undefined && url.startsWith('/api/collections/?'))
          edited = s.dataset.editId(first!, random);
        return undefined;
      },
    });
    const run = await snapshot(s, base);
    expect(run.code, run.stderr).toBe(0);
    expect(edited).toBe(first); // edited after its collection was read, before the second read of the list
    s.setFaults({ plan: () => undefined });
    const why = `a full pass: collections changed again after the run read them \\(${cid}\\)`;
    expect(run.stderr).toMatch(new RegExp(why));
    expect(await manifestOf(base)).toMatchObject({ kind: 'full', complete: true });
    await expectExact(s, base);
    const next = await snapshot(s, base);
    expect(next.code, next.stderr).toBe(0);
    await expectExact(s, base);
  });
});

describe('a base whose last full pass is dated in the future', () => {
  // A clock set ahead during a full run (or a manifest edited): every incremental run copies last_full_at, so a date in
  // the future would keep --full-every from ever making a full pass again.
  it('is no base: a full pass, said in a line', async () => {
    const s = await serve(300, 87);
    const base = await newDir();
    await snapshotInProcess(s, base); // the base the run below reads
    const path = join(base, 'latest', 'manifest.json');
    const manifest = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(path, JSON.stringify({ ...manifest, last_full_at: '2100-01-01T00:00:00.000Z' }));
    const run = await snapshot(s, base, '--full-every', '1');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /img-etl: a full pass: the last full pass is dated 2100-01-01T00:00:00.000Z, in the future/,
    );
    expect(await manifestOf(base)).toMatchObject({ kind: 'full' });
  });
});

describe('a base without normalisation.json (a snapshot of an earlier version)', () => {
  // Its carried rows' normalisation counts are not known: building on it would give a manifest that counts only the
  // rows read (what the manifest case above checks).
  it('is no base: a full pass, said in a line, and the new snapshot has the file', async () => {
    const s = await serve(300, 88);
    const base = await newDir();
    await snapshotInProcess(s, base); // the base the run below reads
    const path = join(base, 'latest', 'manifest.json');
    const manifest = JSON.parse(await readFile(path, 'utf8')) as { files: { name: string }[] };
    const files = manifest.files.filter((f) => f.name !== 'normalisation.json');
    expect(files).toHaveLength(manifest.files.length - 1);
    await writeFile(path, JSON.stringify({ ...manifest, files }));
    await rm(join(base, 'latest', 'normalisation.json'));
    const run = await snapshot(s, base);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/img-etl: a full pass: the earlier snapshot \S+ holds no normalisation.json/);
    expect(await manifestOf(base)).toMatchObject({ kind: 'full', complete: true });
    expect((await manifestOf(base)).files.map((f) => f.name)).toContain('normalisation.json');
  });
});
