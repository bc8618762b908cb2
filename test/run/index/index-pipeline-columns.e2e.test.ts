/**
 * The snapshot index of a pipeline run with derived columns: its hashes cover the columns the run writes, and two
 * indexes of different tables are never merged, so the drift by the index equals what `img-etl diff` finds.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportData } from '../../../src/report/report-data.js';
import { startService, type RunningService } from '../../../src/service/index.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { CLI, runCliHere } from '../../helpers/run-cli.js';

let dir: string;
let service: RunningService;

beforeAll(async () => {
  dir = await tempDir();
  service = await startService({ records: 60, seed: 7 });
});
afterAll(async () => {
  await service.close();
  await removeDir(dir);
});

const readJson = async <T>(path: string) => JSON.parse(await readFile(path, 'utf8')) as T;

/** A pipeline file adding the string column `tag`, `value` in every row. */
async function tagPipeline(value: string): Promise<string> {
  const file = join(dir, `tag-${value}.mjs`);
  const lib = pathToFileURL(join(CLI, '..', '..', 'index.js')).href;
  const text = [
    `import { definePipeline, derivedColumn, string } from '${lib}';`,
    'export default definePipeline({',
    "  name: 'tag', description: 'tagged', formats: ['parquet'],",
    `  columns: [derivedColumn('tag', string, 'a tag', () => ${JSON.stringify(value)})],`,
    '});',
  ].join('\n');
  await writeFile(file, text);
  return file;
}

/** Runs `args` as a --snapshot run into `base`; the snapshot folders, oldest first. */
async function snapshot(base: string, args: string[]): Promise<string[]> {
  const run = await runCliHere([...args, '--base-url', service.url, '--out', base, '--snapshot', '--full', '--quiet']);
  expect([run.code, run.stderr]).toEqual([0, '']);
  return (await readdir(base))
    .filter((n) => /^\d{8}T/.test(n))
    .sort()
    .map((n) => join(base, n));
}

/** The counts `img-etl diff` prints for two snapshot folders. */
async function diffCounts(older: string, newer: string) {
  const run = await runCliHere(['diff', older, newer, '--out', join(dir, 'diff'), '--to', 'csv']);
  expect(run.code).toBe(0);
  const [, added, removed, changed, unchanged] = /(\d+) added, (\d+) removed, (\d+) changed, (\d+) unchanged/
    .exec(run.stdout)!
    .map(Number);
  return { added, removed, changed, unchanged };
}

/** The drift `report newer --against older` gives. */
async function reportDrift(older: string, newer: string, name: string) {
  const run = await runCliHere(['report', newer, '--against', older, '--out', join(dir, `${name}.html`)]);
  expect([run.code, run.stderr]).toEqual([0, '']);
  return (await readJson<ReportData>(join(dir, `${name}.json`))).drift!;
}

describe('the drift by the index of snapshots with derived columns', () => {
  it('a derived column dropped between runs: the drift counts every record changed, as diff does', async () => {
    const base = join(dir, 'dropped');
    await snapshot(base, ['run', 'derived-columns']);
    const [older, newer] = await snapshot(base, []);
    const want = await diffCounts(older!, newer!);
    expect(want).toEqual({ added: 0, removed: 0, changed: 60, unchanged: 0 });
    const drift = await reportDrift(older!, newer!, 'dropped');
    expect({ added: drift.added, removed: drift.removed, changed: drift.changed, unchanged: drift.unchanged }).toEqual(
      want,
    );
    const run = await readJson<ReportData>(join(newer!, 'report.json'));
    if (run.drift !== null) expect(run.drift.changed).toBe(60); // a note instead is fine; 0 changed is not
  });

  it('a derived column whose values changed between runs: the drift sees the change', async () => {
    const base = join(dir, 'retagged');
    await snapshot(base, ['run', await tagPipeline('a')]);
    const [older, newer] = await snapshot(base, ['run', await tagPipeline('b')]);
    const want = await diffCounts(older!, newer!);
    expect(want).toEqual({ added: 0, removed: 0, changed: 60, unchanged: 0 });
    const drift = await reportDrift(older!, newer!, 'retagged');
    expect(drift.changed).toBe(60);
    expect(drift.fields).toEqual([{ field: 'tag', count: 60 }]);
    const run = await readJson<ReportData>(join(newer!, 'report.json'));
    expect(run.drift?.changed).toBe(60);
  });
});
