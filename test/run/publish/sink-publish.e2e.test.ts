/**
 * A user's sink that writes its file into the run's folder (`run.pending`) has it published with the
 * run, atomically, and listed in the manifest; one that fails publishes nothing; a later run removes it as it removes
 * img-etl's own files of the previous run, and only if it is still the file that run published.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../../helpers/readers.js';
import { CLI, runCliHere } from '../../helpers/run-cli.js';

let service: RunningService;
let dir: string;
beforeAll(async () => {
  service = await startFixtureService({ records: 400, seed: 24 });
  dir = await tempDir();
});
afterAll(async () => {
  await service?.close();
  await removeDir(dir);
});

/**
 * A pipeline file whose sink writes the T maps as `name` at `where` (an expression of `run`), runs `after`, and
 * resolves to `returns` (what toCsv resolved to, by default).
 */
async function pipelineFile(
  file: string,
  { name = 'tmaps.csv', where = 'run.pending', after = '', returns = 'written' } = {},
) {
  const lib = pathToFileURL(join(CLI, '..', '..', 'index.js')).href;
  const path = join(dir, file);
  await writeFile(
    path,
    [
      `import { join } from 'node:path';`,
      `import { definePipeline, rowSink, toCsv } from '${lib}';`,
      'async function* tMaps(batches) {',
      "  for await (const b of batches) yield { ...b, rows: b.rows.filter((r) => r.map_type === 'T map') };",
      '}',
      'export default definePipeline({',
      "  name: 'tmaps-sink',",
      "  description: 'Every image, and the T maps as a CSV of its own',",
      '  sinks: [rowSink(async (rows, run) => {',
      `    const written = await toCsv(tMaps(rows), { path: join(${where}, '${name}'), table: run.table });`,
      `    ${after}`,
      `    return ${returns};`,
      '  })],',
      '});',
    ].join('\n'),
  );
  return path;
}

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

/** Every file of the folder with its sha256 (not the staging a run that failed keeps for the next). */
async function folder(out: string): Promise<Record<string, string>> {
  const names = (await readdir(out)).filter((n) => n !== '.img-etl-staging').sort();
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await sha256(join(out, n))] as const)));
}

const tMapIds = () =>
  [...service.servedRecords()]
    .filter((r) => r['map_type'] === 'T map')
    .map((r) => r['id'] as number)
    .sort((a, b) => a - b);

describe("a sink's file in the run's folder", () => {
  it('is published with the run and listed in the manifest; a failing sink publishes nothing', async () => {
    const out = join(dir, 'published');
    const run = await runCliHere(['run', await pipelineFile('good.mjs'), '--base-url', service.url, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const files = await folder(out);
    expect(Object.keys(files)).toEqual(['collections.parquet', 'images.parquet', 'manifest.json', 'tmaps.csv']);
    const manifest = await readManifest(out);
    expect(manifest.files.find((f) => f.name === 'tmaps.csv')).toMatchObject({
      format: 'sink',
      rows: tMapIds().length,
      sha256: files['tmaps.csv'],
    });
    expect(run.stdout).toMatch(/\n {2}sink {6}\S+tmaps\.csv {2}/);
    const db = await openDuckDB();
    const rows = await query(db, `SELECT id FROM read_csv(${sqlString(join(out, 'tmaps.csv'))}) ORDER BY id`);
    expect(tMapIds().length).toBeGreaterThan(10);
    expect(rows.map((r) => Number(r['id']))).toEqual(tMapIds());

    // A sink that fails after writing its file: exit 1, one line, the folder as it was.
    const failing = await pipelineFile('failing.mjs', { after: "throw new Error('the sink broke');" });
    const failed = await runCliHere(['run', failing, '--base-url', service.url, '--out', out, '--quiet']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^img-etl: load: a sink \(rowSink\) failed: the sink broke\n$/);
    expect(await folder(out)).toEqual(files);
  });

  it("a later run removes the previous run's sink file, unless it no longer holds what img-etl published", async () => {
    const out = join(dir, 'later');
    const good = await pipelineFile('good.mjs');
    const args = ['--base-url', service.url, '--out', out, '--quiet'];
    expect((await runCliHere(['run', good, ...args])).code).toBe(0);
    expect(await readdir(out)).toContain('tmaps.csv');
    expect((await runCliHere(['run', 'full-snapshot', '--fresh', ...args])).code).toBe(0);
    expect((await readdir(out)).sort()).toEqual(['collections.parquet', 'images.parquet', 'manifest.json']);

    expect((await runCliHere(['run', good, ...args])).code).toBe(0);
    await writeFile(join(out, 'tmaps.csv'), 'edited by hand\n');
    expect((await runCliHere(['run', 'full-snapshot', '--fresh', ...args])).code).toBe(0);
    expect(await readFile(join(out, 'tmaps.csv'), 'utf8')).toBe('edited by hand\n');
  });

  it("--keep prunes a snapshot's sink file only while it holds what img-etl published", async () => {
    const out = join(dir, 'pruned');
    const args = ['run', await pipelineFile('kept.mjs'), '--snapshot', '--base-url', service.url, '--out', out];
    expect((await runCliHere([...args, '--quiet'])).code).toBe(0);
    const [older] = (await readdir(out)).filter((n) => /^\d{8}T/.test(n));
    await writeFile(join(out, older!, 'tmaps.csv'), 'edited by hand\n');
    const run = await runCliHere([...args, '--keep', '1']);
    expect(run.code, run.stderr).toBe(0);
    expect(await readdir(join(out, older!))).toEqual(['tmaps.csv']);
    expect(await readFile(join(out, older!, 'tmaps.csv'), 'utf8')).toBe('edited by hand\n');
    expect(run.stdout).toContain(`pruned    ${older} (beyond the newest 1 complete; the folder stays for the files`);
  });

  it("written beside the run folder and refused: the file goes, the earlier run's files stay as they are", async () => {
    const out = join(dir, 'refused-left');
    const args = ['--base-url', service.url, '--out', out, '--quiet'];
    expect((await runCliHere(['run', 'full-snapshot', ...args])).code).toBe(0);
    const before = await folder(out);
    const beside = await pipelineFile('beside-left.mjs', { where: 'run.dataDir' });
    const refused = await runCliHere(['run', beside, ...args]);
    expect(refused.code).toBe(1);
    expect(await folder(out)).toEqual(before);
    expect(refused.stderr).toBe(
      `img-etl: load: a sink wrote ${join(out, 'tmaps.csv')}, in the output folder but not in run.pending ` +
        `(${join(out, '.img-etl-publish')}): write it there to publish it with the run; it was removed\n`,
    );
    // In a --snapshot run the sink's file was in the run's own folder: no folder named like a snapshot stays.
    const snapshots = join(dir, 'refused-snapshots');
    const snap = await runCliHere(['run', beside, '--snapshot', '--base-url', service.url, '--out', snapshots]);
    expect(snap.code).toBe(1);
    expect((await readdir(snapshots)).filter((n) => n !== '.img-etl-staging' && n !== '.img-etl-lock')).toEqual([]);
    // A file of that name the sink did not write this run (it holds other bytes) is not img-etl's to remove.
    await writeFile(join(out, 'tmaps.csv'), 'edited by hand\n');
    const returns = "{ ...written, path: join(run.dataDir, 'tmaps.csv') }"; // a file it did not write
    const kept = await pipelineFile('beside-kept.mjs', { name: 'own.csv', returns });
    const notOurs = await runCliHere(['run', kept, '--fresh', ...args]);
    expect([notOurs.code, notOurs.stderr]).toEqual([
      1,
      `img-etl: load: a sink wrote ${join(out, 'tmaps.csv')}, in the output folder but not in run.pending ` +
        `(${join(out, '.img-etl-publish')}): write it there to publish it with the run\n`,
    ]);
    expect(await readFile(join(out, 'tmaps.csv'), 'utf8')).toBe('edited by hand\n');
  });

  it('written beside the run folder, unsaid, or under a name img-etl writes, is refused in one line', async () => {
    const out = join(dir, 'refused');
    const beside = await pipelineFile('beside.mjs', { where: 'run.dataDir' });
    const run = await runCliHere(['run', beside, '--base-url', service.url, '--out', out, '--quiet']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `img-etl: load: a sink wrote ${join(out, 'tmaps.csv')}, in the output folder but not in run.pending ` +
        `(${join(out, '.img-etl-publish')}): write it there to publish it with the run; it was removed\n`,
    );
    const unsaid = await pipelineFile('unsaid.mjs', { returns: 'undefined' });
    const lost = await runCliHere(['run', unsaid, '--base-url', service.url, '--out', join(dir, 'unsaid'), '--quiet']);
    expect(lost.code).toBe(1);
    expect(lost.stderr).toBe(
      `img-etl: load: ${join(dir, 'unsaid', '.img-etl-publish', 'tmaps.csv')} is in the run's folder but no sink ` +
        'resolved to it: a sink resolves to the files it writes into run.pending (a SinkResult, or an array of ' +
        'them) to have them published\n',
    );
    // A sink that changes its file after toCsv resolved: the manifest would list bytes the file does not hold, and a
    // later run would keep the file as someone's, not remove it with the rest of this run's.
    const after = "await (await import('node:fs/promises')).appendFile(written.path, 'a line more\\n');";
    const changed = await pipelineFile('changed.mjs', { after });
    const moved = await runCliHere([
      'run',
      changed,
      '--base-url',
      service.url,
      '--out',
      join(dir, 'changed'),
      '--quiet',
    ]);
    expect(moved.stderr).toMatch(
      new RegExp(
        `^img-etl: load: a sink's file ${join(dir, 'changed', '.img-etl-publish', 'tmaps.csv')} holds \\d+ bytes ` +
          'of sha256 [0-9a-f]{8}…, not the \\d+ bytes of sha256 [0-9a-f]{8}… the sink resolved to: resolve to ' +
          'the file as it is once written\n$',
      ),
    );
    expect(moved.code).toBe(1);
    expect((await readdir(join(dir, 'changed'))).filter((n) => n !== '.img-etl-staging')).toEqual([]);
    // Two sinks resolving to one file: the manifest would list it twice, once with bytes it does not hold.
    const lib = pathToFileURL(join(CLI, '..', '..', 'index.js')).href;
    const twice = join(dir, 'twice.mjs');
    const sink = (map: string) =>
      `rowSink((rows, run) => toCsv(only(rows, '${map}'), { path: join(run.pending, 'maps.csv'), ` +
      'table: run.table }))';
    await writeFile(
      twice,
      [
        `import { join } from 'node:path';`,
        `import { definePipeline, rowSink, toCsv } from '${lib}';`,
        'async function* only(batches, map) {',
        '  for await (const b of batches) yield { ...b, rows: b.rows.filter((r) => r.map_type === map) };',
        '}',
        `export default definePipeline({ name: 'twice', description: 'two sinks, one file',`,
        `  sinks: [${sink('T map')}, ${sink('Z map')}] });`,
      ].join('\n'),
    );
    const both = await runCliHere(['run', twice, '--base-url', service.url, '--out', join(dir, 'twice'), '--quiet']);
    expect([both.code, both.stderr]).toEqual([
      1,
      `img-etl: load: ${join(dir, 'twice', '.img-etl-publish', 'maps.csv')} is resolved to twice (by two sinks, ` +
        'or twice by one): each file of a run is published once (give each sink its own file)\n',
    ]);
    expect((await readdir(join(dir, 'twice'))).filter((n) => n !== '.img-etl-staging')).toEqual([]);
    const named = await pipelineFile('named.mjs', { name: 'images.csv' });
    const clash = await runCliHere(['run', named, '--base-url', service.url, '--out', join(dir, 'clash'), '--quiet']);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toBe(
      'img-etl: load: a sink cannot publish images.csv: img-etl writes a file of that name (choose another)\n',
    );
  });
});
