/**
 * The researcher's recipe of docs/files.md, executed: its two commands against the bundled service (with one
 * more `--where` keeping the files small), then its Python block with Debian's nibabel and pandas, which the test
 * set-up installs where they are missing. The block must load every file the run fetched (files.parquet, read by
 * DuckDB) and print its shape and the mean of its voxels, which the test reads from the served bytes itself. The block
 * reads files.parquet with pandas; where pandas has no Parquet engine (Debian packages neither pyarrow nor
 * fastparquet), a sitecustomize hands its `read_parquet` of files.parquet a CSV copy DuckDB wrote of that file.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/service/index.js';
import { readFilesTable, servedBytes } from '../helpers/files-run.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { docCommands } from './doc-commands.js';
import { runCli } from '../helpers/run-cli.js';
import { missingTools } from '../helpers/test-tools.js';

type Rec = Record<string, unknown>;

const doc = readFileSync(new URL('../../docs/files.md', import.meta.url), 'utf8');
const from = doc.indexOf("## A researcher's recipe");
const recipe = doc.slice(from, doc.indexOf('\n## ', from + 1));
const shell = /```sh\n([\s\S]*?)```/.exec(recipe)![1]!;
const python = /```python\n([\s\S]*?)```/.exec(recipe)![1]!;

// The block runs with Debian's nibabel and pandas, which the test set-up installs.
const unavailable = missingTools(['python3-pandas', 'python3-nibabel']);

/** The mean of the voxels of a served `.nii.gz` (float32 at vox_offset, scl_slope 1), read without nibabel. */
function voxelMean(gz: Buffer): number {
  const nifti = gunzipSync(gz);
  const offset = nifti.readFloatLE(108);
  const count = [1, 2, 3].reduce((n, d) => n * nifti.readInt16LE(40 + 2 * d), 1);
  let sum = 0;
  for (let i = 0; i < count; i++) sum += nifti.readFloatLE(offset + 4 * i);
  return sum / count;
}

/** Whether Debian's pandas can read Parquet itself (with pyarrow or fastparquet). */
function pandasReadsParquet(): boolean {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import pandas.io.parquet as p; p.get_engine("auto")'], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * The environment the block runs in: where pandas cannot read Parquet, a sitecustomize on PYTHONPATH that answers
 * `pd.read_parquet` of files.parquet from a CSV copy of it written by DuckDB (any other Parquet read is left alone).
 */
async function parquetStandIn(dir: string): Promise<NodeJS.ProcessEnv> {
  if (pandasReadsParquet()) return {};
  const shim = join(dir, 'shim');
  await mkdir(shim);
  const csv = join(shim, 'files.csv');
  await query(
    await openDuckDB(),
    `COPY (FROM read_parquet(${sqlString(join(dir, 'maps', 'files.parquet'))})) TO ${sqlString(csv)}`,
  );
  const code = [
    'import pandas as _pd',
    '_read_parquet = _pd.read_parquet',
    'def _read(path, *args, **kwargs):',
    '    if str(path).endswith("files.parquet"):',
    `        return _pd.read_csv(${JSON.stringify(csv)})`,
    '    return _read_parquet(path, *args, **kwargs)',
    '_pd.read_parquet = _read',
  ];
  await writeFile(join(shim, 'sitecustomize.py'), `${code.join('\n')}\n`);
  return { PYTHONPATH: shim };
}

let service: RunningService;
let cwd: string;

beforeAll(async () => {
  service = await startService({ records: 3000, seed: 51 });
  cwd = await tempDir();
});

afterAll(async () => {
  await service.close();
  await removeDir(cwd);
});

it('runs the recipe: nibabel loads every fetched map and prints its shape and mean', async (ctx) => {
  if (unavailable !== undefined) {
    console.warn(`files-nibabel: the recipe's nibabel block not run: ${unavailable}`);
    ctx.skip();
  }
  expect(python).toContain('pd.read_parquet("maps/files.parquet")'); // each map's path as files.parquet gives it
  const [snapshot, files] = docCommands(shell);
  expect(snapshot!.slice(0, 3)).toEqual(['--snapshot', '--out', 'snapshots']);
  expect(files!.slice(0, 4)).toEqual(['files', 'snapshots/latest', '--out', 'maps']);
  const snap = await runCli([...snapshot!, '--base-url', service.url, '--quiet'], { cwd });
  expect(snap.code).toBe(0);
  const fetch = await runCli([...files!, '--where', 'file_size <= 100000', '--quiet'], { cwd });
  expect(fetch.stderr).toBe('');
  expect(fetch.code).toBe(0);

  const selected = [...service.servedRecords()].filter(
    (r) =>
      r['analysis_level'] === 'group' &&
      r['map_type'] === 'T map' &&
      r['is_thresholded'] === false &&
      (r['number_of_subjects'] as number | null) !== null &&
      (r['number_of_subjects'] as number) >= 20 &&
      (r['file_size'] as number) <= 100_000,
  );
  const table = await readFilesTable(join(cwd, 'maps'));
  expect(table.map((row) => row['id'])).toEqual(selected.map((r) => r['id']).sort((a, b) => Number(a) - Number(b)));
  const fetched = selected.filter((r) => (r['file_size'] as number) > 0);
  expect(fetched.length).toBeGreaterThan(2);

  const output = execFileSync('/usr/bin/python3', ['-c', python], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PYTHONIOENCODING: 'utf-8', ...(await parquetStandIn(cwd)) },
  });
  const lines = output.trim().split('\n');
  expect(lines).toHaveLength(fetched.length);
  const byId = new Map(fetched.map((r): [number, Rec] => [r['id'] as number, r]));
  for (const line of lines) {
    const match = /^(\d+) (.*) (\d+) \((\d+), (\d+), (\d+)\) (\S+)$/.exec(line);
    expect(match, line).not.toBeNull();
    const record = byId.get(Number(match![1]))!;
    expect(record, line).toBeDefined();
    byId.delete(record['id'] as number);
    expect([match![2], Number(match![3])]).toEqual([record['name'], record['number_of_subjects']]);
    expect(match!.slice(4, 7).map(Number)).toEqual([2, 2, 2]);
    expect(Number(match![7])).toBeCloseTo(voxelMean(await servedBytes(record['file'] as string)), 5);
  }
  expect([...byId.keys()]).toEqual([]); // every fetched map was loaded
}, 180_000);
