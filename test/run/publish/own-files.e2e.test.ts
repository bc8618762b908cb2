/**
 * A run deletes or replaces only what it wrote: the output folder holds one run's files, and a file img-etl did not
 * write (where a run would write, a pending folder, a staging folder linked elsewhere, a latest it did not make) is
 * never removed nor replaced. The real CLI over loopback HTTP on a real file system.
 */
import { lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningService } from '../../../src/service/index.js';
import { expectedRow, expectRowsMatch, type Expected } from '../../helpers/expected-row.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { runAsCli } from '../../helpers/library-run.js';
import { madeRecords, startListServer } from '../../helpers/list-server.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { readParquetRows } from '../../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';
import { type ScriptedServer } from '../../helpers/scripted-server.js';

let out: string;
let server: ScriptedServer | undefined;
let service: RunningService | undefined;
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await server?.close();
  await service?.close();
  server = service = undefined;
  await removeDir(out);
});

const manifestOf = (dir = out) => readManifest(dir);
const expectedOf = (records: readonly Record<string, unknown>[]) =>
  new Map<bigint, Record<string, Expected>>(records.map((r) => [BigInt(r['id'] as number), expectedRow(r)]));
/** Requests for the images list page at `offset`. */
const requestsFor = (offset: number): number => {
  const atOffset = (u: string) => new URL(u, 'http://x').searchParams.get('offset') === String(offset);
  return server!.requests.filter((u) => u.startsWith('/api/images/') && atOffset(u)).length;
};

describe('the output folder holds one run', () => {
  it(
    'files an earlier run wrote that this run does not are removed; a file img-etl did ' + 'not write is kept',
    async () => {
      service = await startFixtureService({ records: 50, seed: 3 });
      const user = join(out, 'images.arrow'); // the user's own file, before any img-etl run here
      await writeFile(user, 'mine');
      expect((await runCliHere(['--base-url', service.url, '--out', out, '--to', 'parquet,csv'])).code).toBe(0);
      const csvRun = ['collections.csv', 'collections.parquet', 'images.arrow', 'images.csv', 'images.parquet'];
      expect((await readdir(out)).sort()).toEqual([...csvRun, 'manifest.json']);
      expect((await runCliHere(['--base-url', service.url, '--out', out, '--to', 'parquet'])).code).toBe(0);
      const parquetRun = ['collections.parquet', 'images.arrow', 'images.parquet', 'manifest.json'];
      expect((await readdir(out)).sort()).toEqual(parquetRun);
      expect(await readFile(user, 'utf8')).toBe('mine');
      const names = (await manifestOf()).files.map((f: { name: string }) => f.name);
      expect(names).toEqual(['images.parquet', 'collections.parquet']);
    },
  );
});

describe('files img-etl did not write', () => {
  it('a file named as one the run writes stops it before a request, one line, the file untouched', async () => {
    server = await startListServer(madeRecords(10));
    const theirs: [string, string][] = [
      ['images.parquet', 'my own parquet'],
      ['manifest.json', '{"name": "my web app"}'],
    ];
    for (const [name, text] of theirs) {
      const dir = join(out, name.replace('.', '-'));
      await mkdir(dir);
      await writeFile(join(dir, name), text);
      const run = await runCliHere(['--base-url', server.origin, '--out', dir, '--to', 'parquet,csv']);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `img-etl: load: cannot publish ${join(dir, name)}: a file img-etl did not write is in the way ` +
          '(move it, or choose another --out)\n',
      );
      expect(await readFile(join(dir, name), 'utf8')).toBe(text);
      expect((await readdir(dir)).filter((n) => !n.startsWith('.img-etl-'))).toEqual([name]);
    }
    expect(server.requests).toEqual([]);
  });

  it('a file where the run would make its pending folder: one line naming it before a request, untouched', async () => {
    server = await startListServer(madeRecords(10));
    const pending = join(out, '.img-etl-publish');
    await writeFile(pending, 'not a folder');
    const run = await runCliHere(['--base-url', server.origin, '--out', out, '--quiet']);
    expect([run.code, run.stderr]).toEqual([
      1,
      `img-etl: load: cannot create folder ${pending}: a file is in the way\n`,
    ]);
    expect(await readFile(pending, 'utf8')).toBe('not a folder');
    expect(server.requests).toEqual([]);
  });

  it('a file the previous run did not list is refused, also one only known at the end (rejects.ndjson)', async () => {
    const records = madeRecords(10);
    server = await startListServer(records);
    const args = ['--base-url', server.origin, '--out', out, '--to', 'parquet', '--quiet'];
    // The previous run, read by the runs below: taken by the library as the CLI takes it with args.
    expect((await runAsCli({ baseUrl: server.origin, outDir: out })).manifest.complete).toBe(true);
    await writeFile(join(out, 'images.csv'), 'my csv');
    const refusal = (name: string) =>
      `img-etl: load: cannot publish ${join(out, name)}: a file img-etl did not write is in the way ` +
      '(move it, or choose another --out)\n';
    const csv = await runCliHere([...args, '--to', 'csv']);
    expect([csv.code, csv.stderr]).toEqual([1, refusal('images.csv')]);

    await writeFile(join(out, 'rejects.ndjson'), 'my rejects');
    records.push({ ...records[0], id: 'abc' }); // a reject: this run writes rejects.ndjson
    const rejects = await runCliHere(args);
    expect([rejects.code, rejects.stderr]).toEqual([1, refusal('rejects.ndjson')]);
    expect(await readFile(join(out, 'images.csv'), 'utf8')).toBe('my csv');
    expect(await readFile(join(out, 'rejects.ndjson'), 'utf8')).toBe('my rejects');
    expect((await manifestOf()).records_written).toBe(10);
  });

  it("a staging folder linked to a scratch folder of the user's: other files untouched, fresh or not", async () => {
    let failing = true; // the first run stops at offset 20, its pages staged in the scratch folder
    server = await startListServer(madeRecords(30), { fail: (offset) => (failing && offset >= 20 ? 404 : undefined) });
    const scratch = join(out, 'scratch');
    await mkdir(scratch);
    await writeFile(join(scratch, 'thesis.txt'), 'years of work');
    const dir = join(out, 'snap');
    await mkdir(dir);
    await symlink(scratch, join(dir, '.img-etl-staging'));
    const args = ['--base-url', server.origin, '--out', dir, '--page-size', '10', '--quiet'];
    expect((await runCliHere(args)).code).toBe(1);
    expect((await readdir(scratch)).sort()).toEqual([
      'journal.ndjson',
      'p1-0-10.arrow',
      'p1-0-10.json',
      'p1-10-10.arrow',
      'p1-10-10.json',
      'run.json',
      'thesis.txt',
    ]);
    failing = false;
    expect((await runCliHere([...args, '--fresh'])).code).toBe(0);
    expect(requestsFor(0)).toBe(2);
    expect(await readdir(scratch)).toEqual(['thesis.txt']); // img-etl's staged files removed, the user's kept
    expect(await readFile(join(scratch, 'thesis.txt'), 'utf8')).toBe('years of work');
    expect((await lstat(join(dir, '.img-etl-staging'))).isSymbolicLink()).toBe(true);
    expectRowsMatch(await readParquetRows(dir), expectedOf(madeRecords(30)));
  });

  it('a latest that is not a link img-etl made is never replaced', async () => {
    server = await startListServer(madeRecords(10));
    const elsewhere = join(out, 'elsewhere');
    await mkdir(elsewhere);
    for (const make of [
      (latest: string) => writeFile(latest, 'my notes'),
      (latest: string) => symlink(elsewhere, latest),
    ]) {
      const dir = join(out, `snapshots-${(await readdir(out)).length}`);
      await mkdir(dir);
      const latest = join(dir, 'latest');
      await make(latest);
      const before = (await lstat(latest)).isSymbolicLink() ? await readlink(latest) : await readFile(latest, 'utf8');
      const run = await runCliHere(['--base-url', server.origin, '--out', dir, '--snapshot']);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `img-etl: snapshot: cannot point ${latest} at a snapshot: it is not a link img-etl made ` +
          '(move it, or choose another --out)\n',
      );
      const after = (await lstat(latest)).isSymbolicLink() ? await readlink(latest) : await readFile(latest, 'utf8');
      expect(after).toBe(before);
    }
    expect(server.requests).toEqual([]);
  });
});
