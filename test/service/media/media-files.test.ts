/**
 * The files the bundled service serves under /media/: exact sizes, valid .nii.gz streams, HEAD and Range as
 * nginx answers them, 404 for a lost file, and each file fault knob, observed over HTTP.
 */
import { crc32, gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { crc32WithZeros } from '../../../src/service/media/crc32-zeros.js';
import { niftiGzipFile } from '../../../src/service/media/nifti-gzip-file.js';
import { NO_FAULTS, startService, type RunningService } from '../../../src/service/index.js';
import { niftiProblem } from '../../../src/files/verify-image-file.js';

type Rec = Record<string, unknown>;
let service: RunningService;
let records: Rec[];

beforeAll(async () => {
  service = await startService({ records: 300, seed: 5 });
  records = [...service.servedRecords()];
});
afterAll(() => service.close());
beforeEach(() => {
  service.setFaults({ ...NO_FAULTS, plan: undefined, filePlan: undefined });
  service.resetStats();
});

/** A GET or HEAD with headers; the body as received, and whether the connection ended early. */
function get(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer; cut: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let cut = false;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('aborted', () => (cut = true));
      res.on('error', () => (cut = true));
      res.on('close', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          cut: cut || !res.complete,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const image = (test: (r: Rec) => boolean = () => true): Rec =>
  records.find((r) => (r['file_size'] as number) > 0 && test(r))!;

describe('the .nii.gz files', () => {
  it('crc32WithZeros equals zlib.crc32 over the prefix and the zeros', () => {
    const prefix = Buffer.from('NIfTI header and voxels');
    for (const n of [0, 1, 7, 255, 65_535, 65_536, 1_000_003])
      expect(crc32WithZeros(prefix, n), String(n)).toBe(crc32(Buffer.concat([prefix, Buffer.alloc(n)])));
  });

  it('are valid gzip streams of exactly the size asked for, holding a NIfTI-1 header; a range is a slice', () => {
    for (const size of [200, 2_000, 65_600, 131_080, 131_081, 1_234_567]) {
      const file = niftiGzipFile(42, size);
      const whole = Buffer.concat([...file.read(0, file.size)]);
      expect(whole.length, String(size)).toBe(size);
      const content = gunzipSync(whole);
      expect(niftiProblem(content.subarray(0, 540)), String(size)).toBeUndefined();
      for (const [a, b] of [
        [0, 1],
        [5, 400],
        [size - 9, size],
        [size >> 1, size],
      ] as [number, number][])
        expect(Buffer.concat([...file.read(a, b)]).equals(whole.subarray(a, b))).toBe(true);
    }
    expect(niftiGzipFile(1, 100).size).toBeGreaterThan(100); // below the smallest such file: the smallest is served
  });
});

describe('/media/ over HTTP', () => {
  it("GET serves the record's file at its file_size, with Accept-Ranges and an ETag; HEAD the same", async () => {
    const record = image();
    const full = await get(record['file'] as string);
    expect(full.status).toBe(200);
    expect(full.body.length).toBe(record['file_size']);
    expect(full.headers['content-length']).toBe(String(record['file_size']));
    expect(full.headers['accept-ranges']).toBe('bytes');
    expect(full.headers['etag']).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(niftiProblem(gunzipSync(full.body).subarray(0, 540))).toBeUndefined();
    const head = await get(record['file'] as string, {}, 'HEAD');
    expect([head.status, head.headers['content-length'], head.body.length]).toEqual([
      200,
      String(record['file_size']),
      0,
    ]);
  });

  it('answers one byte range with 206 and Content-Range, a suffix range too, and 416 past the end', async () => {
    const record = image();
    const size = record['file_size'] as number;
    const whole = (await get(record['file'] as string)).body;
    const part = await get(record['file'] as string, { range: 'bytes=100-199' });
    expect([part.status, part.headers['content-range']]).toEqual([206, `bytes 100-199/${size}`]);
    expect(part.body.equals(whole.subarray(100, 200))).toBe(true);
    const rest = await get(record['file'] as string, { range: `bytes=${size - 10}-` });
    expect(rest.body.equals(whole.subarray(size - 10))).toBe(true);
    const suffix = await get(record['file'] as string, { range: 'bytes=-7' });
    expect([suffix.status, suffix.body.equals(whole.subarray(size - 7))]).toEqual([206, true]);
    const past = await get(record['file'] as string, { range: `bytes=${size}-` });
    expect([past.status, past.headers['content-range']]).toEqual([416, `bytes */${size}`]);
  });

  it('answers 404 for a record whose file_size is 0, for a path no record links to, and 405 to a write', async () => {
    const lost = records.find((r) => r['file_size'] === 0)!;
    expect((await get(lost['file'] as string)).status).toBe(404);
    expect((await get(`${service.url}/media/images/1/nothing.nii.gz`)).status).toBe(404);
    expect((await get(image()['file'] as string, {}, 'DELETE')).status).toBe(405);
  });

  it('serves the other links of a record (thumbnail, surfaces), the same bytes each time', async () => {
    const record = records.find(
      (r) => typeof r['thumbnail'] === 'string' && typeof r['surface_left_file'] === 'string',
    )!;
    for (const key of ['thumbnail', 'surface_left_file', 'surface_right_file']) {
      const first = await get(record[key] as string);
      expect(first.status, key).toBe(200);
      expect(first.body.length, key).toBeGreaterThan(0);
      expect((await get(record[key] as string)).body.equals(first.body), key).toBe(true);
    }
  });
});

describe('file fault knobs', () => {
  const clean = async (record: Rec): Promise<Buffer> => (await get(record['file'] as string)).body;

  it('truncate: the whole Content-Length, part of the body, then the connection closes', async () => {
    const record = image((r) => (r['file_size'] as number) > 50_000);
    service.setFaults({ fileTruncateRate: 1 });
    const reply = await get(record['file'] as string);
    expect(reply.headers['content-length']).toBe(String(record['file_size']));
    expect(reply.cut).toBe(true);
    expect(reply.body.length).toBeLessThan(record['file_size'] as number);
    service.setFaults({ fileTruncateRate: 0 });
    expect(reply.body.equals((await clean(record)).subarray(0, reply.body.length))).toBe(true);
  });

  it('wrong-length: another length; corrupt: one byte changed; ignore-range: 200, whole file', async () => {
    const record = image();
    const good = await clean(record);
    service.setFaults({ fileWrongLengthRate: 1 });
    const longer = await get(record['file'] as string);
    expect(longer.body.length).not.toBe(record['file_size']);
    expect(() => gunzipSync(longer.body)).not.toThrow();
    service.setFaults({ fileWrongLengthRate: 0, fileCorruptRate: 1 });
    const bad = await get(record['file'] as string);
    expect(bad.body.length).toBe(good.length);
    expect([...bad.body].filter((b, i) => b !== good[i])).toHaveLength(1);
    expect(() => gunzipSync(bad.body)).toThrow();
    service.setFaults({ fileCorruptRate: 0, fileIgnoreRangeRate: 1 });
    const ignored = await get(record['file'] as string, { range: 'bytes=10-' });
    expect([ignored.status, ignored.body.equals(good)]).toEqual([200, true]);
    expect(service.stats.files.log.map((e) => e.fault)).toEqual(['none', 'wrong-length', 'corrupt', 'ignore-range']);
  });

  it('a bytes-per-second cap still sends the whole file, and the file plan picks faults per request', async () => {
    const record = image((r) => (r['file_size'] as number) < 20_000);
    const good = await clean(record);
    service.setFaults({
      fileBytesPerSecond: 100_000,
      filePlan: (r) => (r.range === undefined ? undefined : 'ignore-range'),
    });
    expect((await get(record['file'] as string)).body.equals(good)).toBe(true);
    expect((await get(record['file'] as string, { range: 'bytes=5-' })).status).toBe(200);
    expect(service.stats.files.bytesSent).toBe(3 * good.length);
  });
});
