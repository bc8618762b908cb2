/**
 * Review of how an incremental `--snapshot` run builds on its base: a base's files are trusted only as its manifest
 * lists them. A data file the base's manifest does not list (a file of someone's, another snapshot's copied in) is
 * never read as the base's rows or collections: the run writes what a `--full` run of the same service writes.
 */
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Random } from '../../src/service/random.js';
import type { RunningService } from '../../src/service/index.js';
import { expectSameDataFiles, incrementalFixture, manifestOf } from '../helpers/incremental-snapshots.js';
import { runCli } from '../helpers/run-cli.js';

const { serve, newDir } = incrementalFixture();

/** A `--snapshot` run into `base` writing `to`. */
const snap = (s: RunningService, base: string, to: string, ...args: string[]) =>
  runCli(['--base-url', s.url, '--out', base, '--snapshot', '--to', to, '--page-size', '100', ...args]);

describe('a base snapshot holding a data file its manifest does not list', () => {
  it('an images.parquet beside the images.arrow it lists is not read as its rows', async () => {
    const s = await serve(600, 81);
    const [stale, base, full] = [await newDir(), await newDir(), await newDir()];
    expect((await snap(s, stale, 'parquet')).code).toBe(0); // the records before the edits
    s.dataset.edit(5, new Random(7));
    expect((await snap(s, base, 'arrow')).code).toBe(0);
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
    expect((await snap(s, base, 'arrow')).code).toBe(0);
    s.dataset.edit(5, new Random(8));
    expect((await snap(s, fresh, 'parquet')).code).toBe(0); // the collections after the edits
    // A collections.parquet that says no collection changed, in the base snapshot, which lists collections.arrow only.
    await copyFile(join(fresh, 'latest', 'collections.parquet'), join(base, 'latest', 'collections.parquet'));
    const run = await snap(s, base, 'arrow');
    expect(run.code, run.stderr).toBe(0);
    expect((await snap(s, full, 'arrow', '--full')).code).toBe(0);
    await expectSameDataFiles(base, full);
    expect(await manifestOf(base)).toMatchObject({ complete: true });
  });
});
