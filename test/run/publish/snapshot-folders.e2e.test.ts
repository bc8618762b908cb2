/**
 * Scheduled snapshots — a folder per run, `latest` moved only after success, pruning, byte-identical
 * reruns — and options from the environment and a config file.
 */
import { execFileSync } from 'node:child_process';
import { lstat, mkdir, readFile, readdir, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCli, runCliHere } from '../../helpers/run-cli.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { publishLatest } from '../../../src/run/publish/snapshot-folders.js';

let service: RunningService;
let out: string;
beforeAll(async () => {
  service = await startFixtureService({ records: 400, seed: 31 });
});
afterAll(async () => {
  await service?.close();
});
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await removeDir(out);
});

const snapshotFolders = async () => (await readdir(out)).filter((n) => /^\d{8}T\d{6}\.\d{3}Z$/.test(n)).sort();
const DATA = ['images.arrow', 'images.csv', 'images.parquet'];

describe('--snapshot', () => {
  it('writes each run to DIR/<UTC time>/ and points DIR/latest at it', async () => {
    const before = Date.now();
    const run = await runCliHere(['--snapshot', '--base-url', service.url, '--out', out]);
    expect(run.code).toBe(0);
    const [name] = await snapshotFolders();
    expect(name).toBeDefined();
    const time = Date.parse(name!.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})/, '$1-$2-$3T$4:$5:$6'));
    expect(time).toBeGreaterThanOrEqual(before - 1000);
    expect((await lstat(join(out, 'latest'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(out, 'latest'))).toBe(name);
    const report = ['images.index', 'load.py', 'load.sql', 'report.html', 'report.json'];
    const files = ['collections.parquet', 'images.parquet', ...report, 'manifest.json', 'normalisation.json'].sort();
    expect((await readdir(join(out, 'latest'))).sort()).toEqual(files);
    expect(run.stdout).toContain(`latest    ${join(out, 'latest')} -> ${name}`);
  });

  it('removes the temporary link a run killed while moving latest left, and nothing else of that name', async () => {
    await symlink('20260101T000000.000Z', join(out, '.latest.tmp-0a1b2c3d'), 'dir'); // as publishLatest makes it
    await writeFile(join(out, '.latest.tmp-0a1b2c3e'), '20260101T000000.000Z\n'); // its file where links fail
    await mkdir(join(out, '.latest.tmp-0a1b2c3f')); // a folder of that name is not one of img-etl's
    await writeFile(join(out, '.latest.tmp-mine'), 'a user file\n');
    const run = await runCliHere(['--snapshot', '--quiet', '--base-url', service.url, '--out', out]);
    expect(run.code).toBe(0);
    expect((await readdir(out)).filter((n) => n.startsWith('.latest')).sort()).toEqual([
      '.latest.tmp-0a1b2c3f',
      '.latest.tmp-mine',
    ]);
    expect(await readlink(join(out, 'latest'))).toBe((await snapshotFolders())[0]);
  });

  it('finishes the pruning a killed run left part-way; files of yours go back to their path', async () => {
    // As a --keep killed part-way leaves them: a folder moved aside with some of its listed files deleted, and one
    // emptied of img-etl's files (its manifest went last) but for a file of the user's.
    const [half, emptied] = ['20200101T000000.000Z', '20200102T000000.000Z'].map((n) => `.img-etl-pruning-${n}`);
    await mkdir(join(out, half!));
    const listed = ['images.parquet', 'collections.parquet'].map((name) => ({ name, format: 'parquet' }));
    await writeFile(join(out, half!, 'manifest.json'), JSON.stringify({ tool: 'img-etl 0.1.0', files: listed }));
    await writeFile(join(out, half!, 'collections.parquet'), 'the file the kill left');
    await mkdir(join(out, emptied!));
    await writeFile(join(out, emptied!, 'notes.txt'), 'mine');
    await writeFile(join(out, '.img-etl-pruning-mine'), 'a user file\n'); // not a name img-etl gives a folder
    const run = await runCliHere(['--snapshot', '--quiet', '--base-url', service.url, '--out', out]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect((await readdir(out)).filter((n) => n.startsWith('.img-etl-pruning-'))).toEqual(['.img-etl-pruning-mine']);
    expect(await readdir(join(out, '20200102T000000.000Z'))).toEqual(['notes.txt']);
    expect(await snapshotFolders()).toHaveLength(2);
  });

  it('leaves a folder named latest that it did not write alone, and says so in one line (exit 1)', async () => {
    await mkdir(join(out, 'latest'));
    await writeFile(join(out, 'latest', 'mine.txt'), 'not img-etl\n');
    const run = await runCliHere(['--snapshot', '--quiet', '--base-url', service.url, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `img-etl: snapshot: cannot point ${join(out, 'latest')} at a snapshot: it is not a link img-etl made ` +
        '(move it, or choose another --out)',
    );
    expect(await snapshotFolders()).toEqual([]); // refused before anything was fetched
    expect(await readdir(join(out, 'latest'))).toEqual(['mine.txt']);
    expect((await readdir(out)).filter((n) => n.startsWith('.latest'))).toEqual([]);
  });

  it('--dry-run refuses a latest it did not write, as the run does, instead of planning a run', async () => {
    await mkdir(join(out, 'latest'));
    const dry = await runCliHere(['--snapshot', '--dry-run', '--quiet', '--base-url', service.url, '--out', out]);
    expect(dry.stderr.trim()).toBe(
      `img-etl: snapshot: cannot point ${join(out, 'latest')} at a snapshot: it is not a link img-etl made ` +
        '(move it, or choose another --out)',
    );
    expect(dry.stdout).toBe('');
    expect(dry.code).toBe(1);
  });

  it('two runs against an unchanged service write byte-identical data files', async () => {
    for (let i = 0; i < 2; i++)
      expect(
        (await runCliHere(['--snapshot', '--to', 'parquet,arrow,csv', '--base-url', service.url, '--out', out])).code,
      ).toBe(0);
    const [a, b] = await snapshotFolders();
    expect(a).not.toBe(b);
    for (const file of DATA) {
      // Buffer.equals, not toEqual: vitest compares a Buffer element by element (seconds for these 700 kB).
      expect((await readFile(join(out, b!, file))).equals(await readFile(join(out, a!, file))), file).toBe(true);
    }
    const [ma, mb] = await Promise.all([readManifest(join(out, a!)), readManifest(join(out, b!))]);
    // Same rows, bytes and sha256; the loaders too. The report differs: it holds the run's times and the history.
    const kept = (files: { format: string; name: string }[]) => files.filter((f) => f.format !== 'report');
    expect(kept(mb.files)).toEqual(kept(ma.files));
    expect(kept(ma.files).map((f) => f.name)).toEqual(expect.arrayContaining(['load.sql', 'load.py']));
  });

  it('--keep 2 keeps the two newest snapshots; latest never moves to a folder pruned meanwhile', async () => {
    const pruned: string[] = [];
    for (let i = 0; i < 3; i++) {
      expect((await runCliHere(['--snapshot', '--keep', '2', '--base-url', service.url, '--out', out])).code).toBe(0);
      if (i === 0) pruned.push(...(await snapshotFolders()));
    }
    const folders = await snapshotFolders();
    expect(folders).toHaveLength(2);
    expect(folders).not.toContain(pruned[0]);
    expect(await readlink(join(out, 'latest'))).toBe(folders[1]);
    // What a run that published the first folder does when it links it after the newer runs pruned it (its tail ran
    // outside the lock until it was moved under it): refused in one line, latest left where it is.
    const latest = join(out, 'latest');
    await expect(publishLatest(out, pruned[0]!)).rejects.toThrow(
      `snapshot: cannot point ${latest} at ${pruned[0]}: it holds no snapshot img-etl published`,
    );
    expect(await readlink(latest)).toBe(folders[1]);
  });

  it('--keep leaves a folder named like a snapshot whose manifest.json is a FIFO, never waiting on it', async () => {
    const mine = join(out, '20000101T000000.000Z');
    await mkdir(mine);
    execFileSync('mkfifo', [join(mine, 'manifest.json')]); // opened for reading, it waits for a writer for ever
    const args = ['--snapshot', '--keep', '1', '--quiet', '--base-url', service.url, '--out', out];
    const run = await runCli(args, { timeoutMs: 30_000, killSignal: 'SIGKILL' });
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(await snapshotFolders()).toHaveLength(2);
    expect(await readdir(mine)).toEqual(['manifest.json']);
  });

  it('--keep meeting a folder where a listed file of a pruned snapshot is: one line naming it, in words', async () => {
    const old = join(out, '20000101T000000.000Z');
    await mkdir(join(old, 'images.parquet'), { recursive: true }); // a folder where the manifest lists a file
    const files = [{ name: 'images.parquet', format: 'parquet', rows: 1, bytes: 1, sha256: '0'.repeat(64) }];
    await writeFile(join(old, 'manifest.json'), JSON.stringify({ tool: 'img-etl 0.1.0', complete: true, files }));
    const run = await runCliHere(['--snapshot', '--keep', '1', '--quiet', '--base-url', service.url, '--out', out]);
    const aside = join(out, '.img-etl-pruning-20000101T000000.000Z', 'images.parquet');
    expect([run.code, run.stderr]).toEqual([
      1,
      `img-etl: snapshot: cannot prune ${aside}: a folder is in the way (EISDIR)\n`,
    ]);
  });

  it('does not move latest after an incomplete run', async () => {
    expect((await runCliHere(['--snapshot', '--base-url', service.url, '--out', out])).code).toBe(0);
    const [good] = await snapshotFolders();
    const lossy = await startFixtureService({ records: 400, seed: 31, faults: { orphanRate: 0.05, faultSeed: 4 } });
    try {
      const run = await runCliHere(['--snapshot', '--base-url', lossy.url, '--out', out, '--retry-delay', '0.01']);
      expect(run.code).toBe(3);
    } finally {
      await lossy.close();
    }
    expect(await snapshotFolders()).toHaveLength(2);
    expect(await readlink(join(out, 'latest'))).toBe(good);
  });

  it.each([
    [['--keep', '2'], '--keep: only with --snapshot'],
    [['--full'], '--full: only with --snapshot (without it, every run reads the whole list)'],
    [['--full-every', '3'], '--full-every: only with --snapshot (without it, every run reads the whole list)'],
  ])('%j without --snapshot is a usage error', async (option, message) => {
    const run = await runCliHere([...option, '--base-url', service.url, '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(`img-etl: ${message}`);
  });
});

describe('options from the environment and a config file', () => {
  it('IMG_ETL_* variables set options', async () => {
    const run = await runCli(['--base-url', service.url, '--out', out], {
      env: { IMG_ETL_TO: 'csv', IMG_ETL_PAGE_SIZE: '30' },
    });
    expect(run.code).toBe(0);
    expect((await readdir(out)).sort()).toEqual(['collections.csv', 'images.csv', 'manifest.json']);
    expect((await readManifest(out)).page_size).toBe(30);
  });

  it('IMG_ETL_* variables meant for snapshots do not break other commands', async () => {
    const env = { IMG_ETL_CONCURRENCY: '3', IMG_ETL_TO: 'csv' };
    expect((await runCli(['serve', '--help'], { env })).code).toBe(0);
    expect((await runCli(['diff', '--help'], { env })).code).toBe(0);
  });

  it('a --config JSON file sets options, and the command line wins over it', async () => {
    const config = join(out, 'img-etl.json');
    await writeFile(config, JSON.stringify({ to: ['arrow'], 'page-size': 25, 'base-url': service.url }));
    const run = await runCliHere(['--config', config, '--page-size', '40', '--out', join(out, 'data')]);
    expect(run.code).toBe(0);
    expect((await readdir(join(out, 'data'))).sort()).toEqual(['collections.arrow', 'images.arrow', 'manifest.json']);
    expect((await readManifest(join(out, 'data'))).page_size).toBe(40);
  });

  it.each([
    [
      'an unknown key',
      { bogus: 1 },
      (path: string) => `img-etl: --config: ${path} sets "bogus", which is not an option of this command`,
    ],
    [
      'a bad value',
      { concurrency: 0 },
      (path: string) => `img-etl: --concurrency, set by --config ${path}: expected a whole number from 1 to 64, got 0`,
    ],
  ])('a config file with %s fails with exit code 2 and one line', async (_, body, message) => {
    const config = join(out, 'bad.json');
    await writeFile(config, JSON.stringify(body));
    const run = await runCliHere(['--config', config, '--base-url', service.url, '--out', join(out, 'data')]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(message(config));
  });

  it('an unreadable or invalid config file fails with exit code 2 naming the file', async () => {
    const missing = await runCliHere(['--config', join(out, 'nope.json')]);
    expect([missing.code, missing.stderr.trim()]).toEqual([
      2,
      `img-etl: --config: cannot read ${join(out, 'nope.json')}: no such file or folder (ENOENT)`,
    ]);
    await writeFile(join(out, 'bad.json'), '{nope');
    const invalid = await runCliHere(['--config', join(out, 'bad.json')]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(`img-etl: --config: ${join(out, 'bad.json')} is not valid JSON`);
  });
});
