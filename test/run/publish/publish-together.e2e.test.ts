/**
 * The files and manifest in --out always come from one run. Nothing is moved into place until every
 * file is written and synced; a disk that fills up while the files are written leaves the previous run's files and
 * manifest as they were, and a publication cut between two renames is finished by the next run.
 */
import { createHash } from 'node:crypto';
import { copyFile, link, mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { runCliHere } from '../../helpers/run-cli.js';
import { mountTmpfs, type Tmpfs } from '../../helpers/tmpfs.js';
import { readManifest } from '../../helpers/read-manifest.js';

let disk: Tmpfs | undefined;
const services: RunningService[] = [];
afterEach(async () => {
  await disk?.remove();
  disk = undefined;
  for (const s of services.splice(0)) await s.close();
});

/** Every file the manifest lists is there with its size and sha256, and no other file or folder is. */
async function expectOneRun(dir: string): Promise<{ name: string; sha256: string }[]> {
  const manifest = await readManifest(dir);
  for (const f of manifest.files) {
    const bytes = await readFile(join(dir, f.name));
    expect({ name: f.name, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }).toEqual({
      name: f.name,
      bytes: f.bytes,
      sha256: f.sha256,
    });
  }
  // The staging folder of an unfinished run stays for the next attempt; nothing else is there.
  const names = (await readdir(dir)).filter((n) => n !== '.img-etl-staging');
  expect(names.sort()).toEqual([...manifest.files.map((f) => f.name), 'manifest.json'].sort());
  return manifest.files;
}

describe('publishing all files together', () => {
  it('the disk is full at the last byte a run writes (its manifest): the previous run stays whole', async () => {
    // The last thing a run allocates is its manifest. Find the smallest disk on which the run succeeds; one page less
    // and the manifest is what fails, after every data file is written. A backup made by hard links (as rsnapshot
    // makes) keeps replaced files' blocks allocated, so replacing a file frees no room for the manifest.
    disk = await mountTmpfs(64 << 20);
    const out = join(disk.dir, 'out');
    const first = await startFixtureService({ records: 300, seed: 1 });
    const changed = await startFixtureService({ records: 300, seed: 2 });
    services.push(first, changed);
    const args = (url: string) => [
      '--base-url',
      url,
      '--out',
      out,
      '--to',
      'parquet,arrow,csv',
      '--page-size',
      '100',
      '--quiet',
      '--fresh',
    ];
    expect((await runCliHere(args(first.url))).code).toBe(0);
    const before = await expectOneRun(out);
    await mkdir(join(disk.dir, 'backup'));
    for (const name of await readdir(out)) await link(join(out, name), join(disk.dir, 'backup', name));
    const page = 4096;
    const used = Math.ceil(disk.used() / page);
    /** Pages in use beyond the first run's files (the backup's). */
    const inUse = () => Math.ceil(disk!.used() / page) - used;
    const failed = new Set<number>(); // pages more on which a run failed
    const attempt = async (pages: number) => {
      disk!.resize((used + pages) * page);
      const run = await runCliHere(args(changed.url));
      if (run.code !== 0) {
        expect(run.code).toBe(1);
        expect(await expectOneRun(out)).toEqual(before);
        failed.add(pages);
      }
      return run.code === 0;
    };
    let [low, high] = [0, 4096]; // pages: the run fails with `low` more, succeeds with `high` more
    expect(await attempt(high)).toBe(true);
    const published = inUse(); // the new run's files and manifest
    // Each success replaced the files: put the first run back for the next attempt.
    const restore = async () => {
      for (const name of await readdir(join(disk!.dir, 'backup')))
        await copyFile(join(disk!.dir, 'backup', name), join(out, name));
    };
    await restore();
    // A binary search whose next attempt, after a failure, is the room that failure points at: a failed run keeps what
    // it staged, and a run holds its staging and all it publishes at once. It finds the same edge in half the runs.
    let guess: number | undefined;
    while (high - low > 1) {
      const mid = guess !== undefined && guess > low && guess < high ? guess : Math.floor((low + high) / 2);
      if (await attempt(mid)) {
        high = mid;
        await restore();
        guess = undefined;
      } else {
        low = mid;
        guess = Math.max(published + inUse(), low + 1);
      }
    }
    // One page short: the manifest could not be written (the search's last failure, or that run now).
    expect(failed.has(high - 1) || !(await attempt(high - 1))).toBe(true);
  }, 180_000); // a search of about six CLI runs: ~10 s alone, more on a machine busy with other tests

  it('a disk that fills while the files are written leaves the previous run untouched, run after run', async () => {
    disk = await mountTmpfs(64 << 20);
    const out = join(disk.dir, 'out');
    const first = await startFixtureService({ records: 3000, seed: 1 });
    services.push(first);
    const args = (url: string) => [
      '--base-url',
      url,
      '--out',
      out,
      '--to',
      'parquet,arrow,csv',
      '--page-size',
      '500',
      '--quiet',
    ];
    expect((await runCliHere(args(first.url))).code).toBe(0);
    const before = await expectOneRun(out);
    const outputs = before.filter((f) => f.name.startsWith('images.') && f.name !== 'images.parquet').length;
    expect(outputs).toBe(2);
    // Room for the staged pages and half the new files: the run fails while it writes them.
    const changed = await startFixtureService({ records: 3000, seed: 2 });
    services.push(changed);
    const staging = 3059 * 1700;
    const sizes = await Promise.all(before.map(async (f) => (await readFile(join(out, f.name))).length));
    disk.resize(disk.used() + staging + Math.round(sizes.reduce((a, b) => a + b, 0) / 2));
    for (let attempt = 0; attempt < 2; attempt++) {
      const run = await runCliHere(args(changed.url));
      expect(run.code).toBe(1);
      expect(await expectOneRun(out)).toEqual(before);
    }
    disk.resize(64 << 20);
    expect((await runCliHere(args(changed.url))).code).toBe(0);
    const after = await expectOneRun(out);
    expect(after.map((f) => f.sha256)).not.toEqual(before.map((f) => f.sha256));
  });
});

describe('a publication cut between two renames', () => {
  it('is finished by the next run in that folder, even one that then fails', async () => {
    const { mkdtemp, rename, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const out = await mkdtemp(join(tmpdir(), 'img-etl-cut-'));
    const service = await startFixtureService({ records: 100, seed: 4 });
    services.push(service);
    try {
      const args = ['--base-url', service.url, '--out', out, '--to', 'parquet,csv', '--quiet'];
      expect((await runCliHere(args)).code).toBe(0);
      const old = await expectOneRun(out);
      // The state a crash leaves after the first rename: a new run's files in .img-etl-publish, one of them moved.
      const next = join(out, 'next');
      expect(
        (await runCliHere(['--base-url', service.url, '--out', next, '--to', 'parquet,arrow', '--quiet'])).code,
      ).toBe(0);
      const pending = join(out, '.img-etl-publish');
      await rename(next, pending);
      await rename(join(pending, 'images.parquet'), join(out, 'images.parquet'));
      const repaired = await runCliHere(['--base-url', 'http://127.0.0.1:9', '--out', out, '--max-attempts', '1']);
      expect(repaired.code).toBe(1);
      const now = await expectOneRun(out);
      // The csvs of the run before are gone.
      const [nowFiles, oldFiles] = [now, old].map((files) => files.map((f) => f.name));
      expect(nowFiles).toEqual(['images.parquet', 'images.arrow', 'collections.parquet', 'collections.arrow']);
      expect(oldFiles).toEqual(['images.csv', 'images.parquet', 'collections.csv', 'collections.parquet']);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it(
    'a pending folder without its manifest (cut before the commit point) is discarded, ' + 'the folder left as it was',
    async () => {
      const { mkdtemp, mkdir: makeDir, rm, writeFile } = await import('node:fs/promises');
      const { tmpdir } = await import('node:os');
      const out = await mkdtemp(join(tmpdir(), 'img-etl-cut-'));
      const service = await startFixtureService({ records: 100, seed: 4 });
      services.push(service);
      try {
        expect((await runCliHere(['--base-url', service.url, '--out', out, '--to', 'csv', '--quiet'])).code).toBe(0);
        const old = await expectOneRun(out);
        await makeDir(join(out, '.img-etl-publish'));
        await writeFile(join(out, '.img-etl-publish', 'images.csv'), 'half a file');
        expect((await runCliHere(['--base-url', 'http://127.0.0.1:9', '--out', out, '--max-attempts', '1'])).code).toBe(
          1,
        );
        expect(await expectOneRun(out)).toEqual(old);
      } finally {
        await rm(out, { recursive: true, force: true });
      }
    },
  );
});
