/**
 * File-system faults a user can act on: the real CLI against the bundled service over loopback HTTP, writing to a real
 * file system that refuses. A full disk and a read-only folder are real tmpfs mounts (the tests run as root); where
 * mounting is not permitted, each test meets another real file-system fault instead (a file or folder in the way),
 * except the torn journal on a full disk, which needs the mount and fails without it.
 * Every failure is one line naming the path and the reason, exit code 1, and leaves no temporary file behind.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile, mkdir, readdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { STAGING_FORMAT } from '../../../src/extract/staging/staging-identity.js';
import { encodePageColumns } from '../../../src/load/arrow/page-columns.js';
import { reportTap } from '../../../src/report/report-tap.js';
import { runSnapshot } from '../../../src/run/run-snapshot.js';
import { IMAGES } from '../../../src/schema/columns.js';
import { checkRecord } from '../../../src/transform/check-record.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../../src/service/index.js';
import { fixtureRecords } from '../../helpers/fixture-records.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { fileSizeWithin, landingPath, servedBytes, snapshotOf, whereIds } from '../../helpers/files-run.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../../helpers/readers.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { runCli, runCliHere } from '../../helpers/run-cli.js';
import { mountTmpfs as diskOf, type Tmpfs } from '../../helpers/tmpfs.js';
import { fetchReply } from '../../service/http.js';

const run = promisify(execFile);

let dir: string;
let service: RunningService | undefined;
let mounted: string[] = [];
let disks: Tmpfs[] = [];
let canMount = false;

/** Mounts a tmpfs of `size` bytes (rounded up to 4 KiB pages) on `at`, read-only if asked. */
async function mountTmpfs(at: string, size: number, readOnly = false): Promise<void> {
  await mkdir(at, { recursive: true });
  await run('mount', ['-t', 'tmpfs', '-o', `size=${Math.ceil(size / 4096) * 4}k${readOnly ? ',ro' : ''}`, 'tmpfs', at]);
  mounted.push(at);
}

beforeAll(async () => {
  // Checked once: can this process mount a tmpfs? (TEST_WITHOUT_MOUNT=1 runs the fallbacks where it can; not IMG_ETL_*,
  // which the CLI reads.)
  if (process.env['TEST_WITHOUT_MOUNT'] === '1') return;
  const probe = await tempDir();
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]);
    await run('umount', [probe]);
    canMount = true;
  } catch {
    canMount = false;
  } finally {
    await removeDir(probe);
  }
});
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await service?.close();
  service = undefined;
  for (const at of mounted.reverse()) await run('umount', [at]).catch(() => run('umount', ['-l', at]));
  mounted = [];
  for (const disk of disks) await disk.remove();
  disks = [];
  await removeDir(dir);
});

/** Every file under `root` whose name says it is a temporary file. */
async function temporaries(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true });
  return entries.filter((name) => /\.tmp-/.test(name));
}

/** The bytes on disk of every page of 100 records the service serves, as staged: its body and its columns. */
async function pageSizes(s: RunningService): Promise<number[]> {
  const sizes: number[] = [];
  for (let offset = 0; offset < s.dataset.size; offset += 100) {
    const { body } = await fetchReply(`${s.listUrl}?limit=100&offset=${offset}`);
    sizes.push(onDisk(body.length) + onDisk(columnsSize(body))); // its body and its columns
  }
  return sizes;
}

/**
 * The size of a page's staged columns as a run that writes CSV alone stages them: each valid record's CSV record and
 * its collection, which is all such a run's write reads.
 */
function columnsSize(body: Buffer): number {
  const records = (JSON.parse(body.toString()) as { results: unknown[] }).results;
  const checks = records.map((record) => checkRecord(record));
  const ids = records.map((r, i) => (checks[i] === 'invalid' ? null : (r as { id: number }).id));
  const extra = checks.flatMap((check, i) => (check === 'valid-with-extra' ? [i] : []));
  const staged = { rows: false, csv: { neutraliseFormulas: true } } as const;
  return encodePageColumns(IMAGES, { records, ids, extra, body, url: 'page' }, staged)?.byteLength ?? 0;
}

/** The sizes of the collections list's pages at limit 100: a run stages them before the images. */
async function collectionPageSizes(s: RunningService): Promise<number[]> {
  const sizes: number[] = [];
  for (let url: string | null = `${new URL('../collections/', s.listUrl).href}?limit=100&offset=0`; url !== null;) {
    const reply = await fetchReply(url);
    sizes.push(reply.body.length);
    url = (JSON.parse(reply.body.toString()) as { next: string | null }).next;
  }
  return sizes;
}

/**
 * Room for writing the collections table, which a run does before the images: its spill file in the staging (each
 * collection's bytes as served, removed once the table is written) and its CSV, each smaller than the list's pages.
 */
function collectionsTableRoom(pages: number[]): number {
  return 2 * onDisk(pages.reduce((sum, n) => sum + n, 0));
}

const onDisk = (bytes: number) => Math.ceil(bytes / 4096) * 4096;

/** Each file of a folder with its sha256. */
async function filesOf(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of await readdir(folder))
    files[name] = createHash('sha256')
      .update(await readFile(join(folder, name)))
      .digest('hex');
  return files;
}

/**
 * The phase of a run that writes a file, by its name: the staging, the data files (the collections' and the images'),
 * the index, report, manifest.
 */
function phaseOf(path: string): string {
  if (path.includes('/.img-etl-staging/')) return 'staging';
  const name = basename(path);
  if (/^(images|collections)\.(parquet|arrow|csv)$/.test(name)) return 'data';
  if (name === 'images.index') return 'index';
  if (/^report\.(html|json)$/.test(name)) return 'report';
  return name === 'manifest.json' ? 'manifest' : name;
}
const lastLine = (stderr: string) => stderr.trimEnd().split('\n').at(-1);

describe('file-system errors', () => {
  it('--out naming a file: one line naming it, exit code 1, nothing requested', async () => {
    service = await startFixtureService({ records: 50 });
    const file = join(dir, 'not-a-folder');
    await writeFile(file, 'x');
    const result = await runCliHere(['--base-url', service.url, '--out', file, '--quiet']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`img-etl: load: cannot create folder ${file}: a file is in the way\n`);
    const below = await runCliHere(['--base-url', service.url, '--out', join(file, 'snap'), '--quiet']);
    expect(below.code).toBe(1);
    expect(below.stderr).toBe(
      `img-etl: load: cannot create folder ${join(file, 'snap')}: ${file} is a file, not a folder\n`,
    );
    expect(service.stats.requests).toBe(0);
  });

  it('--out "" is a bad option: exit code 2, one line', async () => {
    const result = await runCli(['--base-url', 'http://127.0.0.1:9', '--out', ''], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('img-etl: --out: expected a folder, got ""\n');
    expect(await readdir(dir)).toEqual([]);
  });

  it('--out under /proc (ENOENT for any new folder): one line, exit code 1, no endless retry', async () => {
    // Node 20's recursive mkdir retries such a folder forever at 100% CPU; img-etl tries each folder at most twice.
    service = await startFixtureService({ records: 50 });
    for (const out of ['/proc/img-etl-test', '/proc/img-etl-test/snap']) {
      const result = await runCli(['--base-url', service.url, '--out', out, '--quiet'], { timeoutMs: 20_000 });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `img-etl: load: cannot create folder ${out}: /proc does not take new folders (ENOENT)\n`,
      );
    }
    expect(service.stats.requests).toBe(0);
  });

  it('a read-only folder: one line naming the folder and saying it is read-only, exit code 1', async () => {
    service = await startFixtureService({ records: 50 });
    if (canMount) {
      const readOnly = join(dir, 'ro');
      await mountTmpfs(readOnly, 1 << 20, true);
      const inside = await runCliHere(['--base-url', service.url, '--out', join(readOnly, 'snap'), '--quiet']);
      expect(inside.code).toBe(1);
      expect(inside.stderr).toBe(
        `img-etl: load: cannot create folder ${join(readOnly, 'snap')}: the file system is read-only (EROFS)\n`,
      );
      const itself = await runCliHere(['--base-url', service.url, '--out', readOnly, '--quiet']);
      expect(itself.code).toBe(1);
      expect(itself.stderr).toBe(
        `img-etl: staging: cannot create folder ${join(readOnly, '.img-etl-staging')}: the ` +
          `file system is read-only (EROFS)\n`,
      );
    } else {
      // No mount here: a file where the staging folder would go is the folder that cannot be created.
      await writeFile(join(dir, '.img-etl-staging'), 'x');
      const result = await runCliHere(['--base-url', service.url, '--out', dir, '--quiet']);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `img-etl: staging: cannot create folder ${join(dir, '.img-etl-staging')}: a file is in the way\n`,
      );
    }
    expect(service.stats.requests).toBe(0);
  });

  it(
    'a disk too full for the staged pages: one line naming the staged file in the staging folder, and no ' +
      'temporary file left by any rerun',
    async () => {
      service = await startFixtureService({ records: 941, seed: 5 }); // 1,000 records, 10 pages
      const out = join(dir, 'out');
      const staging = join(out, '.img-etl-staging');
      let expected: RegExp;
      if (canMount) {
        // Room for the first two pages and the journal, not for the third.
        const sizes = await pageSizes(service);
        await mountTmpfs(out, onDisk(sizes[0]!) + onDisk(sizes[1]!) + 4 * 4096 + Math.floor(sizes[2]! / 2));
        // The file named is the first staged file the disk has no room for: a page's body or its columns.
        expected = new RegExp(
          `^img-etl: staging: cannot write to ${staging}/p1-\\d+-100\\.(json|arrow): the disk is full ` +
            `\\(ENOSPC\\); 2 pages are kept in ${staging}: run the same command again to resume$`,
        );
      } else {
        // No mount here: a folder in the way of the third staged page fails its rename after its temporary file is
        // written.
        await mkdir(join(staging, 'p1-200-100.json', 'x'), { recursive: true });
        const identity = {
          source_url: service.listUrl,
          page_size: 100,
          started_at: new Date().toISOString(),
          format: STAGING_FORMAT,
        };
        await writeFile(join(staging, 'run.json'), JSON.stringify(identity) + '\n');
        expected = new RegExp(
          `^img-etl: staging: cannot write to ${join(staging, 'p1-200-100.json')}: a folder is ` +
            `in the way \\(EISDIR\\); 2 pages are kept in ${staging}: run the same command again ` +
            `to resume$`,
        );
      }
      for (let attempt = 1; attempt <= 3; attempt++) {
        const result = await runCliHere([
          '--base-url',
          service.url,
          '--out',
          out,
          '--page-size',
          '100',
          '--to',
          'csv',
          '--quiet',
          '--concurrency',
          '1',
        ]);
        expect(result.code, result.stderr).toBe(1);
        expect(lastLine(result.stderr)).toMatch(expected);
        expect(await temporaries(out)).toEqual([]);
      }
    },
  );

  it(
    'a disk with room for the staged pages but not the files: one line naming the file, ' +
      'no temporary file, and a rerun with room finishes',
    async () => {
      service = await startFixtureService({ records: 941, seed: 6 });
      const out = join(dir, 'out');
      let expected: string;
      if (canMount) {
        // The collections list is staged twice (read before the pass and after it), and its table written first.
        const collections = await collectionPageSizes(service);
        const sizes = [...collections, ...collections, ...(await pageSizes(service))];
        const room = sizes.reduce((sum, n) => sum + onDisk(n), 0) + collectionsTableRoom(collections);
        await mountTmpfs(out, room + 16 * 4096); // the images' CSV is ~600 kB
        // The files are written in .img-etl-publish and moved into --out together once all are written.
        expected = `load: cannot write ${join(out, '.img-etl-publish', 'images.csv')}: the disk is full (ENOSPC)`;
      } else {
        // No mount here: a folder in the way of images.csv fails its publication after the file is written.
        await mkdir(join(out, 'images.csv', 'x'), { recursive: true });
        expected = `load: cannot publish ${join(out, 'images.csv')}: a folder is in the way (EISDIR)`;
      }
      for (let attempt = 1; attempt <= 2; attempt++) {
        const result = await runCliHere([
          '--base-url',
          service.url,
          '--out',
          out,
          '--page-size',
          '100',
          '--to',
          'csv',
          '--quiet',
        ]);
        expect(result.code, result.stderr).toBe(1);
        // The images' pages and the collections list's, read before the pass and after it.
        const kept = `${10 + 2 * (await collectionPageSizes(service)).length} pages`;
        expect(lastLine(result.stderr)).toBe(
          `img-etl: ${expected}; ${kept} are kept in ${join(out, '.img-etl-staging')}: ` +
            'run the same command again to resume',
        );
        expect(await temporaries(out)).toEqual([]);
      }
      // With room again, the same command resumes from the kept pages and writes every record.
      if (canMount) await run('mount', ['-o', 'remount,size=64m', out]);
      else await removeDir(join(out, 'images.csv'));
      const served = service.stats.pagesServed;
      const result = await runCliHere([
        '--base-url',
        service.url,
        '--out',
        out,
        '--page-size',
        '100',
        '--to',
        'csv',
        '--quiet',
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(service.stats.pagesServed).toBe(served); // every page came from staging
      const db = await openDuckDB();
      const rows = await query(db, `SELECT id FROM read_csv(${sqlString(join(out, 'images.csv'))}) ORDER BY id`);
      expect(rows.map((r) => Number(r['id']))).toEqual(
        [...service.servedRecords()].map((r) => r['id'] as number).sort((a, b) => a - b),
      );
      expect(rows.map((r) => Number(r['id']))).toEqual(
        expect.arrayContaining(fixtureRecords.map((r) => r['id'] as number)),
      );
    },
  );

  it(
    'a disk with room for the staged pages but not for sorting a list served out of id order: one line naming the ' +
      'spill file in the staging folder, exit code 1, no spill or temporary file left, and a rerun with room finishes',
    async () => {
      expect(canMount, 'this test needs a tmpfs mount (root)').toBe(true);
      // More rows than the write holds at once (5,000), served as shuffled runs of ids: the write spills them by range.
      service = await startFixtureService({ records: 6_000, seed: 6, listOrder: 'real' });
      const out = join(dir, 'out');
      const collections = await collectionPageSizes(service);
      const sizes = [...collections, ...collections, ...(await pageSizes(service))];
      // The staged pages, their journal, the staging's own files and the collections table fit; the spilled rows
      // (megabytes) do not.
      const room = sizes.reduce((sum, n) => sum + onDisk(n), 0) + collectionsTableRoom(collections);
      await mountTmpfs(out, room + 128 * 4096);
      const staging = join(out, '.img-etl-staging');
      const args = ['--base-url', service.url, '--out', out, '--page-size', '100', '--to', 'csv', '--quiet'];
      for (let attempt = 1; attempt <= 2; attempt++) {
        const result = await runCliHere(args);
        expect(result.code, result.stderr).toBe(1);
        expect(lastLine(result.stderr)!.replace(/spill-\d+\.bin/, 'spill-N.bin')).toBe(
          `img-etl: staging: cannot write to ${join(staging, 'spill-N.bin')}: the disk is full (ENOSPC); ` +
            `${sizes.length} pages are kept in ${staging}: run the same command again to resume`,
        );
        expect((await readdir(staging)).filter((name) => name.startsWith('spill-'))).toEqual([]);
        expect(await temporaries(out)).toEqual([]);
      }
      // With room again, the same command resumes from the kept pages and writes every record in id order.
      await run('mount', ['-o', 'remount,size=64m', out]);
      const served = service.stats.pagesServed;
      const result = await runCliHere(args);
      expect([result.code, result.stderr]).toEqual([0, '']);
      expect(service.stats.pagesServed).toBe(served); // every page came from staging
      const db = await openDuckDB();
      const rows = await query(db, `SELECT id FROM read_csv(${sqlString(join(out, 'images.csv'))})`);
      expect(rows.map((r) => Number(r['id']))).toEqual(
        [...service.servedRecords()].map((r) => r['id'] as number).sort((a, b) => a - b),
      );
    },
    120_000,
  );

  it(
    'a disk that fills while files are fetched: one line naming the file in its folder, exit code 1, what was ' +
      'fetched kept, and a rerun with room finishes',
    async () => {
      expect(canMount, 'this test needs a tmpfs mount (root)').toBe(true);
      service = await startService({ records: 400, seed: 9 });
      const snap = await snapshotOf(service, join(dir, 'snap'));
      const chosen = [...service.servedRecords()]
        .filter(fileSizeWithin(40_000, 160_000))
        .slice(0, 2)
        .sort((a, b) => (a['id'] as number) - (b['id'] as number));
      const [first, second] = chosen.map((r) => onDisk(r['file_size'] as number));
      const out = join(dir, 'files');
      const args = ['files', snap, '--out', out, ...whereIds(chosen), '--concurrency', '1', '--quiet'];
      const page = 4096; // the run's lock file
      // Room for the lock only: the first file's validator (its version, kept beside its .part) cannot be written.
      // Room for the first file and half the second: the second's body cannot be written.
      const levels = [
        { size: page, path: `${join(out, landingPath(chosen[0]!))}.part.validator`, done: 0 },
        { size: page + first! + page + second! / 2, path: `${join(out, landingPath(chosen[1]!))}.part`, done: 1 },
      ];
      for (const { size, path, done } of levels) {
        await mountTmpfs(out, size);
        const result = await runCliHere(args);
        expect(result.code).toBe(1);
        expect(result.stderr).toBe(`img-etl: files: cannot write to ${path}: the disk is full (ENOSPC)\n`);
        for (const record of chosen.slice(0, done))
          expect(await readFile(join(out, landingPath(record)))).toEqual(await servedBytes(record['file'] as string));
        // With room again, the same command fetches the rest.
        await run('mount', ['-o', 'remount,size=64m', out]);
        const rerun = await runCliHere(args);
        expect([rerun.code, rerun.stderr]).toEqual([0, '']);
        for (const record of chosen)
          expect(await readFile(join(out, landingPath(record)))).toEqual(await servedBytes(record['file'] as string));
        await run('umount', [out]);
        mounted.pop();
      }
    },
    180_000, // four CLI runs and a snapshot: a minute on a machine busy with other tests
  );

  it(
    'a disk full at each phase of a --snapshot run (staged pages, data files, index, report, manifest): one line ' +
      'naming the file in its folder, exit code 1, the previous snapshot and latest as they were, staging kept, and ' +
      'a rerun with room finishes',
    async () => {
      expect(canMount, 'this test needs a tmpfs mount (root)').toBe(true);
      service = await startFixtureService({ records: 300, seed: 1 });
      const formats = ['parquet', 'arrow', 'csv'] as const;
      const snapshot = ['--snapshot', '--to', formats.join(','), '--page-size', '100', '--quiet'];
      const args = (out: string) => ['--base-url', service!.url, '--out', out, ...snapshot];
      // What a second run (a full pass) needs, measured on a disk of its own: its staging, then its files in order.
      const trial = await diskOf(64 << 20);
      disks.push(trial);
      expect((await runCliHere(args(trial.dir))).code).toBe(0);
      const start = trial.used();
      const at = { staged: 0, written: 0 }; // bytes in use beyond the first run's when the files start, and after them
      const { manifest, dataDir } = await runSnapshot({
        ...{
          baseUrl: service.url,
          outDir: trial.dir,
          snapshot: true,
          full: true,
          formats: [...formats],
          pageSize: 100,
        },
        taps: [reportTap()],
        onEvent: (e) => {
          if (e.type === 'publish-start') at.staged = trial.used() - start;
          if (e.type === 'publish-end') at.written = trial.used() - start;
        },
      });
      const pages = new Map(manifest.files.map((f) => [f.name, onDisk(f.bytes)]));
      pages.set('manifest.json', onDisk((await stat(join(dataDir, 'manifest.json'))).size));
      const sum = (...names: string[]) => names.reduce((n, name) => n + pages.get(name)!, 0);
      const page = 4096; // each level is a page short of the file it aims at, or half way through the staging
      // The collections table is written first (through a spill file in the staging, smaller than its files, removed
      // once they are written), then the images' files.
      const collections = [...pages.keys()].filter((name) => name.startsWith('collections.'));
      expect(collections).toHaveLength(formats.length);
      const levels = [
        at.staged / 2,
        at.staged + sum(...collections, 'images.parquet') - page,
        at.staged +
          sum(...collections, ...formats.map((f) => `images.${f}`), 'normalisation.json', 'images.index') -
          page,
        at.written + sum('report.html') - page,
        at.written + sum('report.html', 'report.json', 'load.sql', 'load.py', 'manifest.json') - page,
      ];

      const disk = await diskOf(64 << 20);
      disks.push(disk);
      const out = disk.dir;
      expect((await runCliHere(args(out))).code).toBe(0);
      const first = await readlink(join(out, 'latest'));
      const before = await filesOf(join(out, first));
      const staging = join(out, '.img-etl-staging');
      const phases: string[] = [];
      for (const [i, level] of levels.entries()) {
        disk.resize(disk.used() + Math.round(level / page) * page);
        const result = await runCliHere([...args(out), '--full']);
        expect(result.code, result.stderr).toBe(1);
        const line = new RegExp(
          `^img-etl: (staging|load): cannot write (?:to )?(${out}/\\S+): the disk is full \\(ENOSPC\\)` +
            `; \\d+ pages are kept in ${staging}: run the same command again to resume\n$`,
        ).exec(result.stderr);
        expect(line, result.stderr).not.toBeNull();
        phases.push(phaseOf(line![2]!));
        // Nothing lost: the previous snapshot whole, latest on it, the staging kept; nothing else in the folder.
        expect(await readlink(join(out, 'latest'))).toBe(first);
        expect(await filesOf(join(out, first))).toEqual(before);
        expect((await readdir(out)).sort()).toEqual(['.img-etl-staging', first, 'latest'].sort());
        disk.resize(64 << 20);
        // Each level from the same state (the last: resumed by the rerun below).
        if (i < levels.length - 1) await rm(staging, { recursive: true });
      }
      expect(phases).toEqual(['staging', 'data', 'index', 'report', 'manifest']);
      const rerun = await runCliHere([...args(out), '--full']);
      expect([rerun.code, rerun.stderr]).toEqual([0, '']);
      expect(await readlink(join(out, 'latest'))).not.toBe(first);
      expect(await readManifest(join(out, 'latest'))).toMatchObject({ complete: true });
    },
    180_000, // eight CLI runs and a library run: about a minute on a machine busy with other tests
  );

  it('--keep on a snapshot folder it cannot delete: one line naming the folder and why, latest moved', async () => {
    expect(canMount, 'this test needs a read-only bind mount (root)').toBe(true);
    service = await startFixtureService({ records: 50 });
    const args = ['--snapshot', '--base-url', service.url, '--out', dir, '--quiet'];
    expect((await runCliHere(args)).code).toBe(0);
    const [old] = (await readdir(dir)).filter((name) => /^\d{8}T/.test(name));
    const folder = join(dir, old!);
    await run('mount', ['--bind', folder, folder]);
    mounted.push(folder);
    await run('mount', ['-o', 'remount,bind,ro', folder]);
    const files = (await readdir(folder)).sort();
    const result = await runCliHere([...args, '--keep', '1']);
    expect(result.code).toBe(1);
    // A mount point cannot be renamed: the folder is moved aside before anything in it is deleted (prune-folder.ts).
    const aside = join(dir, `.img-etl-pruning-${old!}`);
    expect(result.stderr).toBe(`img-etl: snapshot: cannot move ${folder} aside to ${aside}: it is busy (EBUSY)\n`);
    const [, newer] = (await readdir(dir)).filter((name) => /^\d{8}T/.test(name)).sort();
    expect(await readlink(join(dir, 'latest'))).toBe(newer);
    expect((await readdir(folder)).sort()).toEqual(files);
  });

  it('a pruning that failed part-way never blocks a later run: it says in one line what stays, and why', async () => {
    expect(canMount, 'this test needs a tmpfs mount (root)').toBe(true);
    service = await startFixtureService({ records: 50 });
    const args = ['--snapshot', '--base-url', service.url, '--out', dir];
    const snapshots = async () => (await readdir(dir)).filter((name) => /^\d{8}T/.test(name)).sort();
    expect((await runCliHere([...args, '--quiet'])).code).toBe(0);
    const [old] = await snapshots();
    await writeFile(join(dir, old!, 'notes.txt'), 'mine\n'); // a file of the user's, kept whatever happens
    // What rm cannot remove: a mount point (a listed file bind-mounted on itself; unlinking it is EBUSY).
    const listed = join(dir, old!, 'images.parquet');
    await run('mount', ['--bind', listed, listed]);
    mounted.push(listed);
    const aside = join(dir, `.img-etl-pruning-${old!}`);
    const busy = join(aside, 'images.parquet');
    const pruning = await runCliHere([...args, '--quiet', '--keep', '1']);
    mounted = [(await readdir(dir)).includes(basename(aside)) ? busy : listed]; // the mount moves with its folder
    expect([pruning.code, pruning.stderr]).toEqual([
      1,
      `img-etl: snapshot: cannot prune ${busy}: it is busy (EBUSY)\n`,
    ]);

    // The next run snapshots as ever, tries the leftover again and says in one line what stays and why.
    const later = await runCliHere(args);
    expect(later.code, later.stderr).toBe(0);
    const [second, third] = await snapshots(); // the first is aside
    expect(await readlink(join(dir, 'latest'))).toBe(third);
    const notice =
      `img-etl: snapshot: cannot prune ${busy}: it is busy (EBUSY); ` +
      `${aside} stays, to be pruned again by the next --snapshot run`;
    expect(later.stderr.split('\n').filter((line) => line.includes('prune'))).toEqual([notice]);
    expect(second).toBeDefined();
    expect(await readFile(join(aside, 'notes.txt'), 'utf8')).toBe('mine\n');

    // Once the obstacle is gone, a run finishes the pruning: the user's file goes back under the folder's name.
    await run('umount', [busy]);
    mounted = [];
    const finished = await runCliHere([...args, '--quiet']);
    expect([finished.code, finished.stderr]).toEqual([0, '']);
    expect((await readdir(dir)).filter((name) => name.startsWith('.img-etl-pruning-'))).toEqual([]);
    expect(await readdir(join(dir, old!))).toEqual(['notes.txt']);
  });

  it('a publication left unfinished in another snapshot folder, not removable: one line, the run goes on', async () => {
    expect(canMount, 'this test needs a tmpfs mount (root)').toBe(true);
    service = await startFixtureService({ records: 50 });
    const args = ['--snapshot', '--base-url', service.url, '--out', dir];
    const snapshots = async () => (await readdir(dir)).filter((name) => /^\d{8}T/.test(name)).sort();
    expect((await runCliHere([...args, '--quiet'])).code).toBe(0);
    const [old] = await snapshots();
    const published = await readdir(join(dir, old!));
    const bytes = await Promise.all(published.map((name) => readFile(join(dir, old!, name))));
    // A publication killed before its manifest, whose folder cannot be removed: a mount point (rmdir is EBUSY).
    const pending = join(dir, old!, '.img-etl-publish');
    await mountTmpfs(pending, 64 * 1024);
    await writeFile(join(pending, 'images.parquet'), 'never published\n');

    const later = await runCliHere(args);
    expect(later.code, later.stderr).toBe(0);
    const [, second] = await snapshots();
    expect(await readlink(join(dir, 'latest'))).toBe(second);
    expect(later.stderr.split('\n').filter((line) => line.includes('.img-etl-publish'))).toEqual([
      `img-etl: load: cannot remove an earlier run's unfinished publication ${pending}: it is busy (EBUSY); ` +
        `it stays, to be tried again by the next --snapshot run (this run publishes into ${join(dir, second!)})`,
    ]);
    // The complete snapshot beside it is as it was: every file its manifest lists, byte for byte.
    expect((await readdir(join(dir, old!))).sort()).toEqual([...published, '.img-etl-publish'].sort());
    for (const [i, name] of published.entries()) expect(await readFile(join(dir, old!, name))).toEqual(bytes[i]);

    // Once the obstacle is gone, a run removes the leftover without a word.
    await run('umount', [pending]);
    mounted = [];
    const finished = await runCliHere([...args, '--quiet']);
    expect([finished.code, finished.stderr]).toEqual([0, '']);
    expect((await readdir(join(dir, old!))).sort()).toEqual([...published].sort());
  });

  it('an unfinished publication that cannot be removed where a resumed run publishes: one line naming it', async () => {
    expect(canMount, 'this test needs a tmpfs mount (root)').toBe(true);
    let down = true; // an outage after two pages: the first run fails with its staging kept
    let served = 0;
    service = await startFixtureService({
      records: 240,
      seed: 15,
      collectionEndpoints: false,
      faults: { plan: ({ url }) => (down && url.startsWith('/api/images/') && served++ >= 2 ? '500' : undefined) },
    });
    const args = ['--snapshot', '--base-url', service.url, '--out', dir, '--page-size', '50', '--quiet'];
    const first = await runCliHere([...args, '--concurrency', '1', '--max-attempts', '2', '--retry-delay', '0.01']);
    expect(first.code, first.stderr).toBe(1);
    const staged = JSON.parse(await readFile(join(dir, '.img-etl-staging', 'run.json'), 'utf8')) as {
      started_at: string;
    };
    const name = new Date(staged.started_at).toISOString().replace(/[-:]/g, ''); // a resumed run keeps this name
    const pending = join(dir, name, '.img-etl-publish');
    await mountTmpfs(pending, 64 * 1024);
    down = false;

    const blocked = await runCliHere(args);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toMatch(
      new RegExp(
        `^img-etl: load: cannot remove an earlier run's unfinished publication ${pending}: it is busy \\(EBUSY\\)` +
          '(; [^\\n]*)?\n$',
      ),
    );

    await run('umount', [pending]);
    mounted = [];
    const resumed = await runCliHere(args);
    expect([resumed.code, resumed.stderr]).toEqual([0, '']);
    expect(await readlink(join(dir, 'latest'))).toBe(name);
    expect(await readdir(join(dir, name))).not.toContain('.img-etl-publish');
  });

  it(
    'a torn journal on a disk with no room to rewrite it: one line, no temporary file, the journal as it was, ' +
      'and a rerun with room finishes',
    async () => {
      expect(canMount, 'this test needs a tmpfs mount (root)').toBe(true);
      service = await startFixtureService({ records: 941, seed: 7 });
      const out = join(dir, 'out');
      const staging = join(out, '.img-etl-staging');
      const journal = join(staging, 'journal.ndjson');
      const args = ['--base-url', service.url, '--out', out, '--page-size', '100', '--to', 'csv', '--quiet'];
      // Room for the collections list and two pages of images: the run stops with pages staged.
      const sizes = await pageSizes(service);
      const collections = (await collectionPageSizes(service)).reduce((sum, n) => sum + onDisk(n), 0);
      await mountTmpfs(out, collections + onDisk(sizes[0]!) + onDisk(sizes[1]!) + 4 * 4096 + Math.floor(sizes[2]! / 2));
      const first = await runCliHere([...args, '--concurrency', '1']);
      expect(first.code, first.stderr).toBe(1);
      // A crash tore the journal's last line; then the disk filled up to one page (4 KiB): room for the run's lock
      // file, not for the journal written again (more than a page).
      await appendFile(journal, '{"type":"page","pass":1,"off');
      const before = await readFile(journal, 'utf8');
      const { stdout } = await run('df', ['--output=used', '-B1', out]);
      await run('mount', ['-o', `remount,size=${Number(stdout.trim().split('\n').at(-1)) + 4096}`, out]);
      const second = await runCliHere(args);
      expect(second.code, second.stderr).toBe(1);
      expect(lastLine(second.stderr)).toMatch(
        new RegExp(
          `^img-etl: staging: cannot write to ${journal}: the disk is full \\(ENOSPC\\); \\d+ pages are kept in `,
        ),
      );
      expect(await temporaries(out)).toEqual([]);
      expect(await readFile(journal, 'utf8')).toBe(before);
      await run('mount', ['-o', 'remount,size=64m', out]);
      const third = await runCliHere(args);
      expect(third.code, third.stderr).toBe(0);
      expect(await temporaries(out)).toEqual([]);
      const db = await openDuckDB();
      const rows = await query(db, `SELECT id FROM read_csv(${sqlString(join(out, 'images.csv'))}) ORDER BY id`);
      expect(rows.map((r) => Number(r['id']))).toEqual(
        [...service.servedRecords()].map((r) => r['id'] as number).sort((a, b) => a - b),
      );
    },
  );
});
