/**
 * What a download tells of its bytes: each chunk written, and what its `.part` holds after it, so that a body the
 * server restarts from byte 0 is not counted twice. The bundled service over loopback HTTP.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { downloadFile } from '../../src/files/download-file.js';
import { HttpClient } from '../../src/extract/paging/http-client.js';
import { startService, type RunningService } from '../../src/service/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';

let service: RunningService;
let dir: string;
beforeAll(async () => {
  service = await startService({ records: 20, seed: 5 });
  dir = await tempDir();
});
afterAll(async () => {
  await service.close();
  await removeDir(dir);
});

it('a body cut short, then sent whole to the Range that continues it: the .part is told cut to 0', async () => {
  const record = [...service.servedRecords()].find((r) => (r['file_size'] as number) > 10_000)!;
  const size = record['file_size'] as number;
  // the first answer is cut short; the next, to the Range continuing the .part, ignores it and sends the whole file
  service.setFaults({ filePlan: (request) => (request.range === undefined ? 'truncate' : 'ignore-range') });
  const client = new HttpClient(new URL(service.url), { connections: 1 });
  const told: { bytes: number; held: number }[] = [];
  try {
    const url = record['file'] as string;
    const path = join(dir, 'a.nii.gz');
    const onBytes = (bytes: number, held: number) => told.push({ bytes, held });
    const task = { url, fetchUrl: url, path, expectedBytes: size };
    const result = await downloadFile(task, { client, retry: { attempts: 3, baseDelayMs: 1 }, onBytes });
    expect(result.status).toBe('ok');
    expect((await readFile(path)).length).toBe(size);
  } finally {
    await client.close();
  }
  expect(service.stats.files.log.map((e) => e.fault)).toEqual(['truncate', 'ignore-range']);
  const cut = told.findIndex((t, i) => i > 0 && t.held < told[i - 1]!.held);
  expect(told.slice(0, cut).at(-1)!.held).toBeGreaterThan(0); // the first body wrote some bytes
  expect(told[cut]).toEqual({ bytes: 0, held: 0 });
  expect(told.at(-1)!.held).toBe(size);
  // each chunk after the cut adds its bytes to what the .part holds
  expect(told.slice(cut).reduce((n, t) => n + t.bytes, 0)).toBe(size);
});
