/**
 * An older snapshot whose images.parquet was damaged so that parquet-wasm traps
 * (RuntimeError: unreachable) on it, under a manifest whose bytes and sha256 were made to fit the damage. The next
 * `--snapshot` run of changed records publishes (exit 0, latest moves) with a drift note naming the file, whether the
 * older snapshot has an index (the drift read after the run wrote) or not (read while it writes): a trap poisons the
 * parquet-wasm instance it happens in, and the run still reads and writes its own Parquet after it.
 */
import { createHash } from 'node:crypto';
import { readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportData } from '../../src/report/report-data.js';
import { startService } from '../../src/service/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCli } from '../helpers/run-cli.js';

let dir: string;

/** One `--snapshot` run into `base` of 30 records served with `seed` (the same ids, other values for another seed). */
async function snapshot(base: string, seed: number): Promise<{ code: number; stderr: string; folder: string }> {
  const service = await startService({ records: 30, seed });
  try {
    const run = await runCli(['--base-url', service.url, '--out', base, '--snapshot', '--to', 'parquet', '--quiet']);
    const latest = await readlink(join(base, 'latest')).catch(() => '');
    return { code: run.code, stderr: run.stderr, folder: join(base, latest) };
  } finally {
    await service.close();
  }
}

type Manifest = { files: { name: string; bytes: number; sha256: string }[] };

/**
 * Inverts the first 8 bytes of the first page's zstd frame (its magic number and header), which parquet-wasm panics
 * on whatever the values (damage inside the compressed values traps or not by the values, which hold the service's
 * port), and fits the manifest's bytes and sha256 to the damaged file.
 */
async function damage(folder: string): Promise<string> {
  const path = join(folder, 'images.parquet');
  const bytes = await readFile(path);
  const frame = bytes.indexOf(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
  expect(frame).toBeGreaterThan(0);
  for (let i = frame; i < frame + 8; i++) bytes[i] = bytes[i]! ^ 0xff;
  await writeFile(path, bytes);
  const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')) as Manifest;
  const entry = manifest.files.find((f) => f.name === 'images.parquet')!;
  entry.bytes = bytes.length;
  entry.sha256 = createHash('sha256').update(bytes).digest('hex');
  await writeFile(join(folder, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return path;
}

/** Removes the index of the snapshot in `folder`, and its line in the manifest, as a snapshot of an older version. */
async function dropIndex(folder: string): Promise<void> {
  await rm(join(folder, 'images.index'));
  const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')) as Manifest;
  manifest.files = manifest.files.filter((f) => f.name !== 'images.index');
  await writeFile(join(folder, 'manifest.json'), JSON.stringify(manifest, null, 2));
}

beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await removeDir(dir);
});

describe('an older snapshot whose images.parquet makes parquet-wasm trap, under a manifest made to fit', () => {
  for (const indexed of [true, false]) {
    it(`does not fail the next --snapshot run (older ${indexed ? 'with' : 'without'} an index)`, async () => {
      const base = join(dir, indexed ? 'indexed' : 'bare');
      const first = await snapshot(base, 1);
      expect([first.code, first.stderr]).toEqual([0, '']);
      const damaged = await damage(first.folder);
      if (!indexed) await dropIndex(first.folder);
      // The damage is one parquet-wasm traps on, past the manifest's checks.
      const report = await runCli(['report', first.folder, '--out', join(dir, 'r.html')]);
      expect(report.code).toBe(1);
      expect(report.stderr).toMatch(/^img-etl: report: cannot read [^\n]*images\.parquet: [^\n]*unreachable[^\n]*\n$/);

      const second = await snapshot(base, 2);
      expect([second.code, second.stderr]).toEqual([0, '']);
      expect(second.folder).not.toBe(first.folder);
      const data = JSON.parse(await readFile(join(second.folder, 'report.json'), 'utf8')) as ReportData;
      expect(data.drift).toBeNull();
      expect(data.drift_note).toContain(`no comparison with ${basename(first.folder)}: `);
      expect(data.drift_note).toContain(`cannot read ${damaged}: `);
      expect(data.drift_note).toContain('parquet-wasm failed on its bytes (RuntimeError: unreachable)');
      // The run's own files were read back whole after the trap: the owners from its collections table.
      expect([data.collections.owners_note, data.collections.owners === null]).toEqual([null, false]);
    }, 180_000);
  }
});
