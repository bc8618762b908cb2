/**
 * Names the loaders give (load.sql's `collection_record`, the images_with_collection view's struct of each image's
 * collection) are not a pipeline's to take: a library run in process against the bundled service, its load.sql run
 * in DuckDB when the run is not refused.
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePipeline, derivedColumn, reportTap, runPipeline, startService, string } from '../../src/index.js';
import type { RunningService } from '../../src/service/index.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { missingTools, VENV_PYTHON } from '../helpers/test-tools.js';

let service: RunningService;
let dir: string;
beforeAll(async () => {
  service = await startService({ records: 12, seed: 5 });
  dir = await tempDir();
});
afterAll(async () => {
  await service?.close();
  await removeDir(dir);
});

describe('a derived column named as a column of a loader', () => {
  it('collection_record is refused at pipeline load, naming it (load.sql would have two of that name)', async () => {
    const pipeline = definePipeline({
      name: 'clash',
      description: 'a column named as load.sql names the collection struct',
      formats: ['parquet'],
      columns: [derivedColumn('collection_record', string, 'a note', () => 'mine')],
    });
    const options = { baseUrl: service.url, outDir: join(dir, 'clash'), snapshot: true, taps: [reportTap()] };
    const outcome = await Promise.resolve()
      .then(() => runPipeline(pipeline, options))
      .then(
        async ({ dataDir }) => {
          const db = await openDuckDB();
          await query(db, `SET file_search_path = ${sqlString(dataDir)}`);
          await db.run(await readFile(join(dataDir, 'load.sql'), 'utf8'));
          const rows = await query(db, 'SELECT collection_record FROM images_with_collection LIMIT 1');
          return `loaded: ${JSON.stringify(rows, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`;
        },
        (error: unknown) => (error as Error).message,
      );
    expect(outcome).toBe(
      'schema: column "collection_record" cannot be added: load.sql\'s images_with_collection view gives that name ' +
        "to each image's collection; choose another",
    );
  });
});

describe("a derived column named as load.py's join names a collections column", () => {
  /** load.py's images_with_collection() of the run, the column `column` of its first row; else the run's refusal. */
  async function joined(name: string, column: string): Promise<string> {
    const pipeline = definePipeline({
      name,
      description: `a column named ${column}`,
      formats: ['parquet'],
      columns: [derivedColumn(column, string, 'a note', () => 'mine')],
    });
    const options = { baseUrl: service.url, outDir: join(dir, name), snapshot: true, taps: [reportTap()] };
    return runPipeline(pipeline, options).then(
      ({ dataDir }) => {
        const script = [
          'import sys',
          "sys.path.insert(0, '.')",
          'import load',
          'frame = load.images_with_collection()',
          `print(list(frame.columns).count(${JSON.stringify(column)}), frame[${JSON.stringify(column)}].iloc[0])`,
        ].join('\n');
        const run = spawnSync(VENV_PYTHON, ['-c', script], { cwd: dataDir, encoding: 'utf8' });
        return run.status === 0
          ? `loaded: ${run.stdout.trim()}`
          : `load.py failed: ${run.stderr.trim().split('\n').at(-1)!}`;
      },
      (error: unknown) => (error as Error).message,
    );
  }

  it('<a name images and collections share>_collection is refused at pipeline load, naming it', async () => {
    expect(await joined('shared', 'name_collection')).toBe(
      'schema: column "name_collection" cannot be added: load.py\'s images_with_collection() gives that name to ' +
        'the collections\' "name", which the images have too; choose another',
    );
    const unavailable = missingTools(['venv']);
    if (unavailable !== undefined) {
      console.warn(`loader-names: load.py not run: ${unavailable}`);
      return;
    }
    // a collections column the images do not have is not suffixed: that name is the pipeline's to take
    expect(await joined('own', 'owner_name_collection')).toBe('loaded: 1 mine');
  });
});
