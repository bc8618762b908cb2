/**
 * A map the listing gives as a file that is not a `.nii.gz` has no place in nilearn's folder (nilearn names every map
 * `image_<id>.nii.gz` and nibabel reads it by that name): `files --layout nilearn` says so and counts it, and never
 * writes it under that name.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import { fixtureLines } from '../../helpers/fixture-service.js';
import { startSnapshottedService, type Rec } from '../../helpers/files-run.js';
import { openDuckDB, query, removeDir, sqlString } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';

let service: RunningService;
let root: string;
let snap: string;
let plain: Rec;

beforeAll(async () => {
  // One real record's map served as an uncompressed `.nii` (NeuroVault holds a few), beside the others as they are.
  const lines = fixtureLines();
  const record = JSON.parse(lines[0]!) as Rec;
  const file = (record['file'] as string).replace(/\.nii\.gz$/, '.nii');
  const data = [JSON.stringify({ ...record, file }), ...lines.slice(1)];
  ({ service, root, snap } = await startSnapshottedService({ data, records: 0 }));
  plain = { ...record, file };
});

afterAll(async () => {
  await service.close();
  await removeDir(root);
});

describe("a map that is not a .nii.gz, in nilearn's folder", () => {
  it('is failed with its reason in files.parquet, counted in the summary, and written nowhere', async () => {
    expect(plain['file']).toMatch(/\.nii$/);
    const out = join(root, 'maps');
    const where = ['--where', `collection_id = ${String(plain['collection_id'])}`];
    const run = await runCliHere(['files', snap, '--layout', 'nilearn', '--out', out, '--summary', 'json', ...where]);
    expect(run.code, run.stderr).toBe(3); // incomplete: a selected map is not there
    const summary = JSON.parse(run.stdout) as { counts: Record<string, number> };
    expect(summary.counts['failed']).toBe(1);

    const db = await openDuckDB();
    const rows = await query(
      db,
      `SELECT id, status, reason FROM read_parquet(${sqlString(join(out, 'files.parquet'))}) WHERE status <> 'ok'`,
    );
    expect(rows.map((r) => [r['id'], r['status']])).toEqual([[BigInt(plain['id'] as number), 'failed']]);
    const why = /\.nii is not a \.nii\.gz, the only file nilearn's folder holds \(image_<id>\.nii\.gz\)$/;
    expect(rows[0]!['reason']).toMatch(why);
    const folder = join(out, 'neurovault', `collection_${String(plain['collection_id'])}`);
    const names = await readdir(folder);
    expect(names).not.toContain(`image_${String(plain['id'])}.nii.gz`);
    expect(names.filter((n) => n.startsWith(`image_${String(plain['id'])}`))).toEqual([]); // nor its record
    expect(names.length).toBeGreaterThan(0); // the collection's other maps are there
  });
});
