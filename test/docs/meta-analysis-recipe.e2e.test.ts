/**
 * The meta-analysis recipe of docs/recipes/meta-analysis.md, executed: the bundled service with an effect planted for
 * the group-level Z maps of one paradigm at a known coordinate, its commands (the real CLI: a snapshot, then the maps
 * into nilearn's folder), then meta_analysis.py as written with the test venv's nilearn, the service closed first so
 * that nothing can reach it. The script's peak must lie within one voxel of the planted coordinate on each axis, and
 * its Bonferroni-thresholded Z map (read back here from the NIfTI bytes) must hold nothing outside the planted
 * effect's support: every voxel farther than 9 mm from the coordinate, where the service adds nothing to the noise.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/service/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { docCommands } from './doc-commands.js';
import { runCli } from '../helpers/run-cli.js';
import { missingTools, VENV_PYTHON } from '../helpers/test-tools.js';

const SCRIPT = fileURLToPath(new URL('../../docs/recipes/meta_analysis.py', import.meta.url));
const doc = readFileSync(new URL('../../docs/recipes/meta-analysis.md', import.meta.url), 'utf8');
const shell = /```sh\n([\s\S]*?)```/.exec(doc)![1]!;
const PARADIGM = 'trm_550b5a47aa23e';
const PLANTED = [-22, -4, -18]; // the service's default coordinate, as the recipe says
const SUPPORT_MM = 9;

/** Why the script cannot run here, if it cannot: the venv, or nilearn in it (the test set-up installs both). */
function unavailable(): string | undefined {
  const missing = missingTools(['venv']);
  if (missing !== undefined) return missing;
  try {
    execFileSync(VENV_PYTHON, ['-c', 'import nilearn, pyarrow'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'nilearn not installed in the test venv: the test set-up installs it (npm run pretest)';
  }
}

/** The voxels of a NIfTI-1 file that are not 0, as MNI millimetres with their value (float32 or float64 voxels). */
function nonZeroVoxels(gz: Buffer): { mm: number[]; value: number }[] {
  const nifti = gunzipSync(gz);
  const [nx, ny, nz] = [1, 2, 3].map((d) => nifti.readInt16LE(40 + 2 * d)) as [number, number, number];
  const datatype = nifti.readInt16LE(70);
  expect([16, 64]).toContain(datatype);
  const srow = [0, 1, 2].map((r) => [0, 1, 2, 3].map((c) => nifti.readFloatLE(280 + 16 * r + 4 * c)));
  const offset = nifti.readFloatLE(108);
  const found: { mm: number[]; value: number }[] = [];
  for (let n = 0; n < nx * ny * nz; n++) {
    const value = datatype === 16 ? nifti.readFloatLE(offset + 4 * n) : nifti.readDoubleLE(offset + 8 * n);
    if (value === 0 || Number.isNaN(value)) continue;
    const ijk = [n % nx, Math.floor(n / nx) % ny, Math.floor(n / (nx * ny)), 1];
    found.push({ mm: srow.map((row) => row.reduce((sum, v, c) => sum + v * ijk[c]!, 0)), value });
  }
  return found;
}

let service: RunningService;
let cwd: string;

beforeAll(async () => {
  service = await startService({ records: 2000, seed: 1, plantedEffect: { paradigm: PARADIGM } });
  cwd = await tempDir();
});

afterAll(async () => {
  await service.close();
  await removeDir(cwd);
});

it('runs the recipe: the one-sample test finds the planted peak, and nothing beyond the planted blob', async (ctx) => {
  const why = unavailable();
  if (why !== undefined) {
    console.warn(`meta-analysis recipe not run: ${why}`);
    ctx.skip();
  }
  expect(doc).toContain(`\`\`\`python\n${readFileSync(SCRIPT, 'utf8')}\`\`\``); // the doc shows the script as run
  const [snapshot, files] = docCommands(shell);
  expect(files!.slice(0, 6)).toEqual(['files', 'snapshots/latest', '--layout', 'nilearn', '--out', 'data']);
  expect(files).toContain(`cognitive_paradigm_cogatlas_id = '${PARADIGM}'`);
  const snap = await runCli([...snapshot!, '--base-url', service.url, '--quiet'], { cwd });
  expect(snap.code).toBe(0);
  const fetched = await runCli([...files!, '--quiet'], { cwd });
  expect([fetched.code, fetched.stderr]).toEqual([0, '']);
  const selected = [...service.servedRecords()].filter(
    (r) =>
      r['cognitive_paradigm_cogatlas_id'] === PARADIGM &&
      r['analysis_level'] === 'group' &&
      r['map_type'] === 'Z map' &&
      r['is_thresholded'] === false &&
      r['not_mni'] === false &&
      (r['file_size'] as number) > 0,
  );
  await service.close(); // nilearn reads the folder alone

  const output = execFileSync(VENV_PYTHON, [SCRIPT, 'data'], { cwd, encoding: 'utf8' });
  // what the script prints after nilearn's own lines: the counts and threshold, then the clusters table
  const lines = output.trim().split('\n');
  const at = lines.findIndex((line) => / maps, \d+ voxels in the mask: /.test(line));
  const head = /^(\d+) maps, (\d+) voxels in the mask: Bonferroni \|z\| > (\S+)$/.exec(lines[at] ?? '');
  expect(head, output).not.toBeNull();
  expect(Number(head![1])).toBe(selected.length);
  expect(selected.length).toBeGreaterThanOrEqual(21); // the power the recipe asks for
  const threshold = Number(head![3]);
  // the clusters table's first row is the highest peak: "1 X Y Z z size"
  expect(lines[at + 1]).toMatch(/^\s*Cluster ID\s+X\s+Y\s+Z\s+Peak Stat/);
  const peak = lines[at + 2]!.trim().split(/\s+/).map(Number);
  expect(peak.slice(1, 4).map((mm, axis) => Math.abs(mm - PLANTED[axis]!) <= 2)).toEqual([true, true, true]);
  expect(peak[4]).toBeGreaterThan(threshold);

  const significant = nonZeroVoxels(await readFile(join(cwd, 'meta_analysis_z.nii.gz')));
  expect(significant.length).toBeGreaterThan(0);
  const away = significant.filter(({ mm }) => Math.hypot(...mm.map((v, axis) => v - PLANTED[axis]!)) > SUPPORT_MM);
  expect(away).toEqual([]);
  for (const { value } of significant) expect(Math.abs(value)).toBeGreaterThan(threshold);
}, 120_000);
