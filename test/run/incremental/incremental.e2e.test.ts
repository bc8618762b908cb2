/**
 * A `--snapshot` run builds on the latest snapshot of its base folder, reading only the
 * collections whose `modify_date` or `number_of_images` moved since (and new ones), carrying the others' rows over; its
 * data files equal, byte for byte, those of a `--full` run taken right after against the same service, in every
 * format. Real CLI, the bundled service over loopback HTTP, outputs read back by DuckDB and apache-arrow and compared
 * value by value with what the service serves at the end.
 */
import { existsSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Int64, Table, tableFromIPC, tableToIPC, type Vector } from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/run/publish/manifest.js';
import { Random } from '../../../src/service/basics/random.js';
import type { RunningService } from '../../../src/service/index.js';
import {
  BAD_IDS,
  expectExact,
  expectSameDataFiles,
  FORMATS,
  incrementalFixture,
  manifestOf,
  raceTheSecondRead,
  snapshot,
  snapshotInProcess,
} from '../../helpers/incremental-snapshots.js';
import { killWhen, type JournalEntry } from '../../helpers/kill-when.js';
import { runCliHere } from '../../helpers/run-cli.js';

const { serve, newDir } = incrementalFixture();

/** Whether the journal holds a page of the collections list's `round`, and its end. */
const roundStarted = (e: JournalEntry[], round: number) =>
  e.some((x) => x.type === 'collections-page' && x.round === round);
const isCollectionPage = (x: JournalEntry) => x.type === 'collection-page';
const roundEnded = (e: JournalEntry[], round: number) =>
  e.some((x) => x.type === 'collections-end' && x.round === round);

describe('an incremental snapshot', () => {
  it(
    'reads only the collections that changed since the latest snapshot, and writes the bytes of a full run ' +
      'taken right after, in every format',
    async () => {
      const s = await serve(1500, 61);
      const [base, full] = [await newDir(), await newDir()];
      const first = await snapshot(s, base);
      expect(first.code).toBe(0);
      expect(first.stderr).toContain('a full pass: there is no earlier snapshot in');
      const earlier = await manifestOf(base);
      expect(earlier).toMatchObject({ kind: 'full', last_full_at: earlier.started_at, rejects: 2 });

      const random = new Random(3);
      const changed = [...s.dataset.delete(4, random), ...s.dataset.insert(4, random)];
      const gone = s.dataset.collectionIdOf(s.dataset.idAt(800))!;
      s.dataset.deleteCollection(gone);
      const touched = new Set(changed.map((id) => s.dataset.collectionIdOf(id)!).filter((cid) => cid !== gone));
      s.resetStats();
      const run = await snapshot(s, base);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`img-etl: building on ${earlier.started_at.replace(/[-:]/g, '')}`);
      const manifest = await manifestOf(base);
      expect(manifest).toMatchObject({ kind: 'incremental', complete: true, missing: 0, rejects: 2 });
      expect(manifest.last_full_at).toBe(earlier.started_at);
      // One request of the image list (its count); the collections list twice; the changed collections' own lists.
      expect(s.stats.listRequests).toBe(1);
      expect(manifest.requests.images).toBe(1);
      expect(new Set(manifest.completeness.reconciled.map((c) => c.id))).toEqual(touched);
      expect(manifest.completeness.incremental).toMatchObject({
        read_collections: touched.size,
        vanished_collections: 1,
      });
      expect(run.stdout).toContain('  pages     no pass over the image list: built on ');
      await expectExact(s, base);

      const again = await snapshot(s, full, '--full');
      expect(again.code).toBe(0);
      expect(again.stderr).toContain('img-etl: a full pass: --full');
      const incremental = await expectSameDataFiles(base, full);
      expect([...incremental.keys()]).toEqual(expect.arrayContaining(['images.csv', 'rejects.ndjson', 'images.index']));
    },
  );

  it('a base unlike its manifest, --full and --full-every 0 make a full pass, said in a line', async () => {
    const s = await serve(300, 62);
    const base = await newDir();
    await snapshotInProcess(s, base); // the base the runs below read
    const fullEvery = await snapshot(s, base, '--full-every', '0');
    expect(fullEvery.code).toBe(0);
    expect(fullEvery.stderr).toMatch(/img-etl: a full pass: the last full pass was [\d.]+ days ago \(--full-every 0\)/);
    expect(await manifestOf(base)).toMatchObject({ kind: 'full' });
    const images = join(base, 'latest', 'images.parquet');
    const bytes = await readFile(images);
    bytes[bytes.length - 20] = bytes[bytes.length - 20]! ^ 0xff;
    await writeFile(images, bytes);
    const corrupt = await snapshot(s, base);
    expect(corrupt.code).toBe(0);
    expect(corrupt.stderr).toContain('does not match its manifest');
    expect(corrupt.stderr).toMatch(/img-etl: a full pass: the earlier snapshot \S+ cannot be built on: /);
    const manifest = await manifestOf(base);
    expect(manifest).toMatchObject({ kind: 'full' });
    expect(manifest.full_because).toContain('does not match its manifest');
    await expectExact(s, base);
  });

  it('the image list counting other than the rows it would hold makes a full pass instead, exact', async () => {
    const s = await serve(300, 63);
    const base = await newDir();
    await snapshotInProcess(s, base); // the base the run below reads
    // A record inserted as the run asks for the image list's count, after its last read of the collections list: no
    // collection it read shows it, and the collections in doubt do not account for it.
    let inserted = false;
    s.setFaults({
      plan: ({ url }) => {
        if (!inserted && url.startsWith('/api/images/?') && url.includes('limit=1&'))
          inserted = s.dataset.insert(1, new Random(13)).length === 1;
        return undefined;
      },
    });
    const run = await snapshot(s, base);
    expect(inserted).toBe(true);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/img-etl: a full pass: the image list counts \d+, but the snapshot would hold \d+/);
    expect(await manifestOf(base)).toMatchObject({ kind: 'full', complete: true });
    await expectExact(s, base);
  });

  const doubtful =
    'a count the rows do not meet reads the collections whose earlier rows are not their count, before a full pass';
  it(doubtful, async () => {
    const s = await serve(800, 66);
    const [base, full] = [await newDir(), await newDir()];
    await snapshotInProcess(s, base); // the base the run below builds on
    // The earlier snapshot lost a row of one collection (its images.arrow and images.index edited, its manifest made to
    // agree; images.parquet gone): nothing changed on the service since, so no collection's date or count moved.
    const latest = join(base, 'latest');
    const lost = s.servedIds().find((id) => !BAD_IDS.includes(id) && id > 1000)!;
    const collection = s.dataset.collectionIdOf(lost)!;
    await dropRow(latest, lost);
    const run = await snapshot(s, base);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("img-etl: the image list's count does not meet the rows: 1 collection whose");
    const manifest = await manifestOf(base);
    expect(manifest).toMatchObject({ kind: 'incremental', complete: true, missing: 0 });
    // Read whole: every record of it comes from its own list now, none carried over.
    const [read] = manifest.completeness.reconciled;
    expect(manifest.completeness.reconciled).toHaveLength(1);
    expect(read).toMatchObject({ id: collection, reason: 'doubt', status: 200, received_before: 0 });
    expect(read!.added).toBe(read!.number_of_images);
    await expectExact(s, base);
    expect((await snapshot(s, full, '--full')).code).toBe(0);
    await expectSameDataFiles(base, full);
  });

  it('a collection deleted while the second read of the collections list pages it is not carried over', async () => {
    // Deleted once the second read has asked for its first page, 3's going shifts 7 back onto that page, behind the
    // read: counted with 3, the ids read met the list's count, so 3's rows were carried over and 7's left out, and the
    // image list's count (less 3's images) agreed. Published complete, one collection's images for another's.
    const s = await serve(400, 74);
    const base = await newDir();
    const { run, args } = await raceTheSecondRead(s, base, (gone) => s.dataset.deleteCollection(gone));
    expect(run.code, run.stderr).toBe(0);
    const manifest = await manifestOf(base);
    expect(manifest).toMatchObject({ kind: 'incremental', complete: true });
    expect(manifest.completeness.incremental).toMatchObject({ vanished_collections: 1 });
    await expectExact(s, base); // record 1140's extra holds 24.0, as served
    const full = await newDir();
    const fullArgs = args.map((a) => (a === base ? full : a));
    expect((await runCliHere([...fullArgs, '--full'])).code).toBe(0);
    await expectSameDataFiles(base, full);
  });
});

describe('an incremental snapshot interrupted', () => {
  // The phases share one service, changed once after one base snapshot, and one --full run taken after the change;
  // each phase resumes a copy of that base (the service is not changed again, so every phase ends at the same bytes).
  const shared = incrementalFixture('all');
  let s: RunningService;
  let base: string;
  let full: string;
  beforeAll(async () => {
    s = await shared.serve(400, 65);
    [base, full] = [await shared.newDir(), await shared.newDir()];
    await snapshotInProcess(s, base); // the base each phase resumes a copy of
    const random = new Random(6);
    for (let i = 0; i < 12; i++) s.dataset.insert(1, random);
    expect((await snapshot(s, full, '--full')).code).toBe(0);
  });

  it('resumes after SIGKILL while the collections in doubt are read, and writes the bytes of a full run', async () => {
    const s = await serve(800, 67);
    const [base, full] = [await newDir(), await newDir()];
    await snapshotInProcess(s, base); // the base the killed run builds on
    // Not the first record of its collection's id-ordered list: the killed run stages only that first one.
    const lost = secondOfACollection(s);
    await dropRow(join(base, 'latest'), lost);
    const args = [
      '--base-url',
      s.url,
      '--out',
      base,
      '--snapshot',
      ...FORMATS,
      '--page-size',
      '1',
      '--concurrency',
      '1',
    ];
    s.setFaults({ pageLatencyMs: 60 }); // killed after one page of the collection, long before its next
    const left = await killWhen(args, base, (e) => e.some((x) => x.type === 'count') && e.some(isCollectionPage));
    // One record of the collection staged: with the base's rows of it, the count would seem met.
    expect(left.filter(isCollectionPage)).toHaveLength(1);
    s.setFaults({ pageLatencyMs: 0 });
    const resumed = await runCliHere(args);
    expect(resumed.code, resumed.stderr).toBe(0);
    const manifest = await manifestOf(base);
    expect(manifest).toMatchObject({ kind: 'incremental', complete: true });
    expect(manifest.completeness.reconciled.map((c) => [c.id, c.reason])).toEqual([
      [s.dataset.collectionIdOf(lost), 'doubt'],
    ]);
    await expectExact(s, base);
    expect((await snapshot(s, full, '--full')).code).toBe(0);
    await expectSameDataFiles(base, full);
  });

  /** Whether a snapshot folder of `base` is publishing: its pending folder exists (the files are being written). */
  const writing = (base: string) => () =>
    readdirSync(base).some((name) => existsSync(join(base, name, '.img-etl-publish')));
  /** The run killed and resumed: a copy of the base at `out`, pages of five read one at a time. */
  const killedRunArgs = (out: string) => [
    '--base-url',
    s.url,
    '--out',
    out,
    '--snapshot',
    ...FORMATS,
    '--page-size',
    '5',
    '--concurrency',
    '1',
  ];
  const phases: [string, (base: string) => (entries: JournalEntry[]) => boolean][] = [
    ['the first read of the collections list', () => (e) => roundStarted(e, 1) && !roundEnded(e, 1)],
    ['the second read of the collections list', () => (e) => roundStarted(e, 2) && !roundEnded(e, 2)],
    ['the changed collections are read', () => (e) => e.some((x) => x.type === 'collection-page')],
    ['the files are written', writing],
  ];
  it.each(phases)('resumes after SIGKILL while %s, and writes the bytes of a full run', async (_, when) => {
    const out = await newDir();
    await cp(base, out, { recursive: true, verbatimSymlinks: true });
    const args = killedRunArgs(out);
    // Each page held 20 ms, so that a phase lasts several polls of the journal on a loaded machine (without it, the
    // second read of the collections list could end between two polls, and the run with it: seen once).
    s.setFaults({ pageLatencyMs: 20 });
    const left = await killWhen(args, out, when(out)).finally(() => s.setFaults({ pageLatencyMs: 0 }));
    expect(left.some((e) => e.type === 'base')).toBe(true);
    const resumed = await runCliHere(args);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await manifestOf(out)).toMatchObject({ kind: 'incremental', complete: true });
    await expectExact(s, out);
    await expectSameDataFiles(out, full);
  });

  it('a killed incremental run resumed with --full makes a full pass, as asked', async () => {
    const out = await newDir();
    await cp(base, out, { recursive: true, verbatimSymlinks: true });
    const args = killedRunArgs(out);
    const left = await killWhen(args, out, (e) => e.some((x) => x.type === 'collection-page'));
    expect(left.some((e) => e.type === 'base')).toBe(true);
    const again = await runCliHere([...args, '--full']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/--full: discarded the staging and started afresh/);
    expect(await manifestOf(out)).toMatchObject({ kind: 'full', complete: true });
    await expectExact(s, out);
    await expectSameDataFiles(out, full);
  });
});

/**
 * Leaves the record `id` out of the snapshot's images.arrow and its images.index (a base check cannot catch a forgery
 * of the files, the index and the manifest together), and makes its manifest agree (the files' rows, size and sha256,
 * the records written); images.parquet and its line go, so that the arrow file is what a run builds on.
 */
async function dropRow(dir: string, id: number): Promise<void> {
  const path = join(dir, 'images.arrow');
  const table = tableFromIPC(await readFile(path));
  const ids = [...(table.getChild('id') as Vector<Int64>)].map(Number);
  const at = ids.indexOf(id);
  expect(at).toBeGreaterThanOrEqual(0);
  const kept = new Table([...table.slice(0, at).batches, ...table.slice(at + 1).batches]);
  const written = new Map([['images.arrow', Buffer.from(tableToIPC(kept, 'file'))]]);
  const index = await readFile(join(dir, 'images.index'));
  const row = Math.ceil((12 + index.readUInt32LE(8)) / 8) * 8 + 16 * at; // the header, then 16 bytes a row
  written.set('images.index', Buffer.concat([index.subarray(0, row), index.subarray(row + 16)]));
  for (const [name, bytes] of written) await writeFile(join(dir, name), bytes);
  await rm(join(dir, 'images.parquet'));
  const manifestPath = join(dir, 'manifest.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
  const fit = (bytes: Buffer) => ({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  manifest.files = manifest.files
    .filter((f) => f.name !== 'images.parquet')
    .map((f) => (written.has(f.name) ? { ...f, rows: f.rows - 1, ...fit(written.get(f.name)!) } : f));
  manifest.records_written -= 1;
  await writeFile(manifestPath, JSON.stringify(manifest, null, 2));
}

/** A record that is neither the first nor the last of its collection's id-ordered list, of a generated collection. */
function secondOfACollection(s: RunningService): number {
  const byCollection = new Map<number, number[]>();
  for (const id of s.servedIds()) {
    const cid = s.dataset.collectionIdOf(id);
    if (cid !== undefined && !BAD_IDS.includes(id) && id > 1000)
      byCollection.set(cid, [...(byCollection.get(cid) ?? []), id]);
  }
  const ids = [...byCollection.values()].find((list) => list.length >= 3)!;
  return ids.sort((a, b) => a - b)[1]!;
}
