/**
 * Issue 25, items 2 and 3: a `--snapshot` run builds on the latest snapshot of its base folder, reading only the
 * collections whose `modify_date` or `number_of_images` moved since (and new ones), carrying the others' rows over; its
 * data files equal, byte for byte, those of a `--full` run taken right after against the same service, in every
 * format. Real CLI, the bundled service over loopback HTTP, outputs read back by DuckDB and apache-arrow and compared
 * value by value with what the service serves at the end.
 */
import { existsSync, readdirSync } from 'node:fs';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Random } from '../../src/service/random.js';
import type { RunningService } from '../../src/service/index.js';
import {
  expectExact,
  expectSameDataFiles,
  FORMATS,
  incrementalFixture,
  manifestOf,
  snapshot,
} from '../helpers/incremental-snapshots.js';
import { killWhen, type JournalEntry } from '../helpers/kill-when.js';
import { runCli } from '../helpers/run-cli.js';

const { serve, newDir } = incrementalFixture();

/** Whether the journal holds a page of the collections list's `round`, and its end. */
const roundStarted = (e: JournalEntry[], round: number) =>
  e.some((x) => x.type === 'collections-page' && x.round === round);
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
    const s = await serve(800, 62);
    const base = await newDir();
    expect((await snapshot(s, base)).code).toBe(0);
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
    const s = await serve(800, 63);
    const base = await newDir();
    expect((await snapshot(s, base)).code).toBe(0);
    // A base that says its service counted one record it never served: the count no longer agrees.
    const path = join(base, 'latest', 'manifest.json');
    const manifest = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(path, JSON.stringify({ ...manifest, missing: 1, complete: false }));
    const run = await snapshot(s, base);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/img-etl: a full pass: the image list counts \d+, but the snapshot would hold \d+/);
    expect(await manifestOf(base)).toMatchObject({ kind: 'full', complete: true });
    await expectExact(s, base);
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
    expect((await snapshot(s, base)).code).toBe(0);
    const random = new Random(6);
    for (let i = 0; i < 12; i++) s.dataset.insert(1, random);
    expect((await snapshot(s, full, '--full')).code).toBe(0);
  });

  /** Whether a snapshot folder of `base` is publishing: its pending folder exists (the files are being written). */
  const writing = (base: string) => () =>
    readdirSync(base).some((name) => existsSync(join(base, name, '.img-etl-publish')));
  const phases: [string, (base: string) => (entries: JournalEntry[]) => boolean][] = [
    ['the first read of the collections list', () => (e) => roundStarted(e, 1) && !roundEnded(e, 1)],
    ['the second read of the collections list', () => (e) => roundStarted(e, 2) && !roundEnded(e, 2)],
    ['the changed collections are read', () => (e) => e.some((x) => x.type === 'collection-page')],
    ['the files are written', writing],
  ];
  it.each(phases)('resumes after SIGKILL while %s, and writes the bytes of a full run', async (_, when) => {
    const out = await newDir();
    await cp(base, out, { recursive: true, verbatimSymlinks: true });
    const args = [
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
    const left = await killWhen(args, out, when(out));
    expect(left.some((e) => e.type === 'base')).toBe(true);
    const resumed = await runCli(args);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await manifestOf(out)).toMatchObject({ kind: 'incremental', complete: true });
    await expectExact(s, out);
    await expectSameDataFiles(out, full);
  });
});
