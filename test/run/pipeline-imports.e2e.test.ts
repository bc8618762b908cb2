/**
 * A pipeline file's identity covers the local modules it imports: a derived column whose rule lives in a helper module
 * of the user's is another pipeline once that helper changes, so a `--snapshot` run never carries over rows the old
 * helper computed (nor resumes their staging), against the bundled service over loopback HTTP.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { readManifest } from '../helpers/read-manifest.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { CLI, runCli } from '../helpers/run-cli.js';

let service: RunningService;
let dir: string;
beforeAll(async () => {
  service = await startFixtureService({ records: 200, seed: 19 });
  dir = await tempDir();
});
afterAll(async () => {
  await service?.close();
  await removeDir(dir);
});

/** Writes the pipeline file, which takes its factor from ./scale.mjs, and that helper with `factor`. */
async function pipelineWithHelper(factor: number): Promise<string> {
  const lib = pathToFileURL(join(CLI, '..', '..', 'index.js')).href;
  await writeFile(join(dir, 'scale.mjs'), `export const SCALE = ${factor};\n`);
  const file = join(dir, 'scaled.mjs');
  await writeFile(
    file,
    [
      `import { definePipeline, derivedColumn, int64 } from '${lib}';`,
      "import { SCALE } from './scale.mjs';",
      'export default definePipeline({',
      "  name: 'scaled',",
      "  description: 'every image, its id scaled',",
      "  columns: [derivedColumn('scaled', int64, 'id times SCALE', (row) => row.id * SCALE)],",
      '});',
    ].join('\n'),
  );
  return file;
}

/** Each id's `scaled` in the latest snapshot, read by DuckDB. */
async function scaledOfLatest(out: string): Promise<Map<number, number>> {
  const db = await openDuckDB();
  const file = sqlString(join(out, 'latest', 'images.parquet'));
  const rows = await query(db, `SELECT id, scaled FROM read_parquet(${file})`);
  return new Map(rows.map((r) => [Number(r['id']), Number(r['scaled'])]));
}

describe("a pipeline file's local imports", () => {
  it("a changed helper module makes a full pass: no row carries the old helper's value", async () => {
    const out = join(dir, 'snapshots');
    const args = (file: string) => ['run', file, '--base-url', service.url, '--out', out, '--snapshot', '--quiet'];
    const first = await runCli(args(await pipelineWithHelper(10)));
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli(args(await pipelineWithHelper(1000))); // the pipeline file itself is unchanged
    expect(second.code, second.stderr).toBe(0);
    const ids = service.servedIds();
    const scaled = await scaledOfLatest(out);
    expect(scaled.size).toBe(ids.length);
    for (const id of ids) expect([id, scaled.get(id)]).toEqual([id, id * 1000]);
    const manifest = await readManifest(join(out, 'latest'));
    expect(manifest).toMatchObject({ complete: true, kind: 'full' });
  });
});
