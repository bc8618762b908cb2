/**
 * The loaders of a `--snapshot` run of a pipeline with derived columns, on library runs in process against the
 * bundled service over loopback HTTP: load.sql in DuckDB (from Parquet, and from CSV where the snapshot has only CSV)
 * and load.py in pandas give the pipeline's columns too, each value as the pipeline derived it.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import derivedColumns from '../../pipelines/derived-columns.js';
import {
  category,
  definePipeline,
  derivedColumn,
  reportTap,
  runPipeline,
  startService,
  string,
} from '../../src/index.js';
import type { Format } from '../../src/snapshot/formats.js';
import type { RunningService } from '../../src/service/index.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { missingTools, VENV_PYTHON } from '../helpers/test-tools.js';

/** An empty string, null or text by the id: what a derived string column may hold. */
const note = (id: number): string | null => ['', null, 'n'][id % 3] ?? null;

/**
 * The bundled derived-columns pipeline (add_year, int64) with a derived category column beside it, and a string one
 * that holds empty strings (which the images' own columns never do: normalisation makes them null).
 */
const pipeline = definePipeline({
  ...derivedColumns,
  name: 'years-and-parity',
  columns: [
    ...(derivedColumns.columns ?? []),
    derivedColumn('parity', category, 'whether the id is even', (row) => ((row['id'] as number) % 2 ? 'odd' : 'even')),
    derivedColumn('note', string, 'empty, null or n', (row) => note(row['id'] as number)),
  ],
});

let service: RunningService;
let dir: string;
const latest: Partial<Record<Format, string>> = {};
beforeAll(async () => {
  service = await startService({ records: 300, seed: 53 });
  dir = await tempDir();
  for (const format of ['parquet', 'csv'] as const) {
    const outDir = join(dir, format);
    const options = { baseUrl: service.url, outDir, formats: [format], snapshot: true, taps: [reportTap()] };
    latest[format] = (await runPipeline(pipeline, options)).dataDir;
  }
});
afterAll(async () => {
  await service?.close();
  await removeDir(dir);
});

/** Each served id's add_year (the UTC year of add_date as served, read by Date) and parity, as text. */
function expected(): Map<number, [string | null, string]> {
  return new Map(
    [...service.servedRecords()].map((r) => {
      const added = r['add_date'];
      const year = typeof added === 'string' && added !== '' ? String(new Date(added).getUTCFullYear()) : null;
      const id = r['id'] as number;
      return [id, [year, id % 2 ? 'odd' : 'even']];
    }),
  );
}

describe("load.sql of a pipeline's snapshot", () => {
  for (const format of ['parquet', 'csv'] as const) {
    it(`from ${format}: the images view has the pipeline's columns, each value as derived`, async () => {
      const db = await openDuckDB();
      await query(db, `SET file_search_path = ${sqlString(latest[format]!)}`);
      await db.run(await readFile(join(latest[format]!, 'load.sql'), 'utf8'));
      const select = 'SELECT id, CAST(add_year AS VARCHAR) AS y, CAST(parity AS VARCHAR) AS p, note FROM images';
      const got = new Map((await query(db, select)).map((r) => [Number(r['id']), [r['y'] ?? null, r['p'], r['note']]]));
      const want = new Map([...expected()].map(([id, values]) => [id, [...values, note(id)]]));
      expect(got).toEqual(want);
    });
  }
});

describe("load.py of a pipeline's snapshot", () => {
  it("from CSV: images() has the pipeline's columns, each value as derived", () => {
    const unavailable = missingTools(['venv']);
    if (unavailable !== undefined) {
      console.warn(`pipeline-loaders: load.py not run: ${unavailable}`);
      return;
    }
    const script = [
      'import json, sys',
      "sys.path.insert(0, '.')",
      'import load',
      'df = load.images()',
      "years = [None if y is None or y != y else str(y) for y in df['add_year'].astype(object)]",
      "print(json.dumps([[int(i), y, str(p)] for i, y, p in zip(df['id'], years, df['parity'])]))",
    ].join('\n');
    const out = execFileSync(VENV_PYTHON, ['-c', script], { cwd: latest.csv!, encoding: 'utf8' });
    const got = new Map((JSON.parse(out) as [number, string | null, string][]).map(([i, y, p]) => [i, [y, p]]));
    expect(got).toEqual(expected());
  });
});
