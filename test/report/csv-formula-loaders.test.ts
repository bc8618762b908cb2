/**
 * The loaders of a snapshot of CSV only whose category values start like a formula (`-`, `=`, …): the CSV writes them
 * with the `'` of formula neutralisation in front, and load.sql and load.py read them as written, `'` included (as
 * docs/report.md says), not fail on a value missing from the categories.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportTap, runSnapshot, startService } from '../../src/index.js';
import { fixtureRecords } from '../helpers/fixture-service.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import { DEBIAN_PYTHON, missingTools } from '../helpers/test-tools.js';

/** map_type and modality of the 12 records served, by id: four start like a formula. */
const SERVED: Record<string, unknown>[] = fixtureRecords()
  .slice(0, 12)
  .map((r, i) => ({ ...r, map_type: i < 3 ? '-T map' : r['map_type'], modality: i === 3 ? '=cmd' : r['modality'] }));
/** What the CSV holds: the `'` of formula neutralisation before each; null for an empty string (normalised). */
const written = (v: unknown) =>
  v === '' || v === undefined ? null : typeof v === 'string' && /^[-=]/.test(v) ? `'${v}` : v;
const WANT = SERVED.map((r) => [r['id'], written(r['map_type']), written(r['modality'])]);

let dir: string;
let folder: string;
beforeAll(async () => {
  dir = await tempDir();
  const service = await startService({ data: SERVED.map((r) => JSON.stringify(r)), records: 0 });
  try {
    const options = { baseUrl: service.url, outDir: dir, formats: ['csv' as const], snapshot: true };
    folder = (await runSnapshot({ ...options, taps: [reportTap()] })).dataDir;
  } finally {
    await service.close();
  }
});
afterAll(async () => {
  await removeDir(dir);
});

describe('the loaders of a CSV-only snapshot with category values that start like a formula', () => {
  it('load.sql: the images view reads them as the CSV has them', async () => {
    const db = await openDuckDB();
    await query(db, `SET file_search_path = ${sqlString(folder)}`);
    await db.run(await readFile(join(folder, 'load.sql'), 'utf8'));
    const rows = await query(db, 'SELECT id, map_type::VARCHAR AS t, modality::VARCHAR AS m FROM images ORDER BY id');
    expect(rows.map((r) => [Number(r['id']), r['t'], r['m']])).toEqual(WANT);
  });

  it('load.py: images() reads them as the CSV has them', () => {
    const unavailable = missingTools(['python3-pandas']);
    if (unavailable !== undefined) {
      console.warn(`csv-formula-loaders: load.py not run: ${unavailable}`);
      return;
    }
    const script = [
      'import json, sys',
      "sys.path.insert(0, '.')",
      'import load',
      'df = load.images()',
      'none = lambda v: None if v is None or v != v else str(v)',
      "rows = zip(df['id'], df['map_type'].astype(object), df['modality'].astype(object))",
      'print(json.dumps([[int(i), none(t), none(m)] for i, t, m in rows]))',
    ].join('\n');
    const out = execFileSync(DEBIAN_PYTHON, ['-s', '-c', script], { cwd: folder, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(WANT);
  });
});
