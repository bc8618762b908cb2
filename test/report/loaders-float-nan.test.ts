/**
 * A pipeline's derived float64 column holding NaN and infinities (which the images' own columns, read from JSON, never
 * hold): load.py reads them the same from CSV as from Parquet, on library runs in process against the bundled service
 * over loopback HTTP, read by the test venv's pandas.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePipeline, derivedColumn, float64, reportTap, runPipeline, startService } from '../../src/index.js';
import type { RunningService } from '../../src/service/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { missingTools, VENV_PYTHON } from '../helpers/test-tools.js';

const VALUES = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 1.5, null];

const pipeline = definePipeline({
  name: 'odd-floats',
  description: 'NaN, infinities, -0, a number and null by the id',
  formats: ['parquet', 'csv'],
  columns: [derivedColumn('ratio', float64, 'an odd float', (row) => VALUES[(row['id'] as number) % 6] ?? null)],
});

let service: RunningService;
let dir: string;
let dataDir: string;
beforeAll(async () => {
  service = await startService({ records: 30, seed: 71 });
  dir = await tempDir();
  const options = { baseUrl: service.url, outDir: dir, snapshot: true, taps: [reportTap()] };
  dataDir = (await runPipeline(pipeline, options)).dataDir;
});
afterAll(async () => {
  await service?.close();
  await removeDir(dir);
});

describe('load.py of a derived float64 column with NaN', () => {
  it('reads the CSV as it reads the Parquet: NaN missing, as pandas has it from Parquet, the others exact', () => {
    const unavailable = missingTools(['venv']);
    if (unavailable !== undefined) {
      console.warn(`loaders-float-nan: load.py not run: ${unavailable}`);
      return;
    }
    const read = (format: string) => {
      const script = [
        'import json, sys',
        "sys.path.insert(0, '.')",
        'import load',
        `frame = load.images(format=${JSON.stringify(format)}).sort_values("id")`,
        'print(json.dumps([[int(i), None if r is None or r is load.pd.NA else repr(float(r))]',
        "                  for i, r in zip(frame['id'], frame['ratio'].astype(object))]))",
      ].join('\n');
      const run = spawnSync(VENV_PYTHON, ['-c', script], { cwd: join(dataDir), encoding: 'utf8' });
      return run.status === 0
        ? (JSON.parse(run.stdout) as unknown)
        : `failed: ${run.stderr.trim().split('\n').at(-1)!}`;
    };
    const want = service
      .servedIds()
      .sort((a, b) => a - b)
      .map((id) => {
        const value = VALUES[id % 6] ?? null;
        const text = value === null || Number.isNaN(value) ? null : Object.is(value, -0) ? '-0.0' : String(value);
        return [id, text === 'Infinity' ? 'inf' : text === '-Infinity' ? '-inf' : text];
      });
    expect(want.some(([id]) => (id as number) % 6 === 0)).toBe(true); // a NaN among them
    expect(read('parquet')).toEqual(want);
    expect(read('csv')).toEqual(want);
  });
});
