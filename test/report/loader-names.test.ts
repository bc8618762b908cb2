/**
 * Names the loaders give (load.sql's `collection_record`, the images_with_collection view's struct of each image's
 * collection) are not a pipeline's to take: a library run in process against the bundled service, its load.sql run
 * in DuckDB when the run is not refused.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePipeline, derivedColumn, reportTap, runPipeline, startService, string } from '../../src/index.js';
import type { RunningService } from '../../src/service/index.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';

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
