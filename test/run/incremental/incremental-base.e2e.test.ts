/**
 * An earlier snapshot of another source, of another schema version, or one that is not complete is
 * never built on: the run makes a full pass and says why in one line (the manifest keeps it). Real CLI, the bundled
 * service over loopback HTTP.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import type { Manifest } from '../../../src/run/publish/manifest.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';

let first: RunningService;
let second: RunningService;
let dir: string;
beforeAll(async () => {
  first = await startFixtureService({ records: 300, seed: 1 });
  second = await startFixtureService({ records: 300, seed: 2 });
  dir = await tempDir();
});
afterAll(async () => {
  await Promise.all([first, second].map((s) => s?.close()));
  await removeDir(dir);
});

/** A `--snapshot` run into `out` (`command`: e.g. `['run', 'derived-columns']` before the options). */
const snapshot = (s: RunningService, out: string, extra: string[] = [], command: string[] = []) =>
  runCliHere([...command, '--base-url', s.url, '--out', out, '--snapshot', '--page-size', '100', ...extra]);
const manifestOf = async (out: string) =>
  JSON.parse(await readFile(join(out, 'latest', 'manifest.json'), 'utf8')) as Manifest;

describe('an earlier snapshot that is no base', () => {
  it('of another source: a full pass, said in a line', async () => {
    const out = join(dir, 'source');
    expect((await snapshot(first, out)).code).toBe(0);
    const run = await snapshot(second, out);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      new RegExp(`img-etl: a full pass: the earlier snapshot \\S+ is of another source \\(${first.listUrl}\\)`),
    );
    expect(await manifestOf(out)).toMatchObject({ kind: 'full' });
  });

  it('of another schema version (a pipeline with a derived column): a full pass, said in a line', async () => {
    const out = join(dir, 'schema');
    expect((await snapshot(first, out)).code).toBe(0);
    const run = await snapshot(first, out, [], ['run', 'derived-columns']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /img-etl: a full pass: the earlier snapshot \S+ has schema version 1, this run writes 1\+add_year/,
    );
    expect(await manifestOf(out)).toMatchObject({ kind: 'full', schema_version: '1+add_year' });
  });

  it('that is not complete (its run exited 3): never latest: the next builds on the complete one', async () => {
    const out = join(dir, 'incomplete');
    expect((await snapshot(first, out)).code).toBe(0);
    const complete = (await manifestOf(out)).started_at;
    first.setFaults({ orphanRate: 0.05 }); // records counted but never served: missing
    const incomplete = await snapshot(first, out, ['--full']);
    first.setFaults({ orphanRate: 0 });
    expect(incomplete.code).toBe(3);
    expect((await manifestOf(out)).started_at).toBe(complete); // latest did not move
    const run = await snapshot(first, out);
    expect(run.code).toBe(0);
    const manifest = await manifestOf(out);
    expect(manifest).toMatchObject({ kind: 'incremental', complete: true, missing: 0 });
    const names = (await readdir(out)).filter((n) => /^\d{8}T/.test(n)).sort();
    expect(names).toHaveLength(3);
    expect(manifest.base).toBe(names[0]); // the complete one, not the incomplete run's folder between
  });
});
