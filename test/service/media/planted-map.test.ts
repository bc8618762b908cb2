/**
 * The planted-effect knob of the bundled service, observed over HTTP and read back without its code: every image file
 * is a float32 NIfTI-1 on the grid of nilearn's `load_mni152_template(resolution=2)` (shape 99×117×95, 2 mm, origin
 * at -98, -134, -72 mm), exactly its listed `file_size` long; the group-level Z maps of the chosen paradigm carry a
 * blob at the planted coordinate, every other map is standard normal noise; the same seed serves the same bytes.
 */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startService, type RunningService } from '../../../src/service/index.js';

type Rec = Record<string, unknown>;
const PARADIGM = 'trm_550b5a47aa23e'; // emotion processing fMRI task paradigm
const SHAPE = [99, 117, 95];
const AFFINE = [
  [2, 0, 0, -98],
  [0, 2, 0, -134],
  [0, 0, 2, -72],
];
let service: RunningService;
let records: Rec[];

beforeAll(async () => {
  service = await startService({ records: 2000, seed: 1, plantedEffect: { paradigm: PARADIGM, at: [30, -60, 40] } });
  records = [...service.servedRecords()];
});
afterAll(() => service.close());

const carries = (r: Rec): boolean =>
  r['map_type'] === 'Z map' && r['analysis_level'] === 'group' && r['cognitive_paradigm_cogatlas_id'] === PARADIGM;

async function served(record: Rec, headers: Record<string, string> = {}): Promise<Buffer> {
  const response = await fetch(record['file'] as string, { headers });
  return Buffer.from(await response.arrayBuffer());
}

/** A served map read as a NIfTI-1 reader does: its header's shape, datatype and sform, and a voxel getter. */
function readNifti(gz: Buffer): { shape: number[]; datatype: number; sform: number[][]; at: (mm: number[]) => number } {
  const nifti = gunzipSync(gz);
  const shape = [1, 2, 3].map((d) => nifti.readInt16LE(40 + 2 * d));
  const sform = [0, 1, 2].map((r) => [0, 1, 2, 3].map((c) => nifti.readFloatLE(280 + 16 * r + 4 * c)));
  const offset = nifti.readFloatLE(108);
  const at = (mm: number[]): number => {
    const [i, j, k] = mm.map((v, axis) => (v - sform[axis]![3]!) / sform[axis]![axis]!);
    return nifti.readFloatLE(offset + 4 * (i! + shape[0]! * (j! + shape[1]! * k!)));
  };
  return { shape, datatype: nifti.readInt16LE(70), sform, at };
}

/** The mean of a map's voxels within 2 mm of a point (the point and its six neighbours). */
function meanNear(map: ReturnType<typeof readNifti>, [x, y, z]: number[]): number {
  const points = [[0, 0, 0], [2, 0, 0], [-2, 0, 0], [0, 2, 0], [0, -2, 0], [0, 0, 2], [0, 0, -2]]; // prettier-ignore
  return points.reduce((sum, [dx, dy, dz]) => sum + map.at([x! + dx!, y! + dy!, z! + dz!]), 0) / points.length;
}

it("serves every image as a float32 map on nilearn's MNI152 2 mm grid, exactly its listed file_size long", async () => {
  const withFile = records.filter((r) => (r['file_size'] as number) > 0);
  const sample = [...withFile.filter(carries).slice(0, 2), ...withFile.filter((r) => !carries(r)).slice(0, 3)];
  expect(new Set(withFile.map((r) => r['file_size'])).size).toBe(1);
  for (const record of sample) {
    const bytes = await served(record);
    expect(bytes.length, `image ${String(record['id'])}`).toBe(record['file_size']);
    const map = readNifti(bytes);
    expect([map.shape, map.datatype, map.sform]).toEqual([SHAPE, 16, AFFINE]);
  }
  expect(records.filter((r) => r['file_size'] === 0).length).toBeGreaterThan(0); // a lost file stays lost
});

it('plants the blob in the group-level Z maps of the paradigm only; other maps are noise there', async () => {
  const withFile = records.filter((r) => (r['file_size'] as number) > 0);
  const carriers = withFile.filter(carries).slice(0, 4);
  // maps that share two of the three traits: the wrong paradigm, the wrong map type, the wrong level
  const others = [
    withFile.find((r) => r['map_type'] === 'Z map' && r['analysis_level'] === 'group' && !carries(r))!,
    withFile.find((r) => r['cognitive_paradigm_cogatlas_id'] === PARADIGM && r['map_type'] !== 'Z map')!,
    withFile.find((r) => r['cognitive_paradigm_cogatlas_id'] === PARADIGM && r['analysis_level'] !== 'group')!,
  ];
  expect(others.every((r) => r !== undefined)).toBe(true);
  const near = async (r: Rec): Promise<number> => meanNear(readNifti(await served(r)), [30, -60, 40]);
  // the blob peaks at 2 and is 1.6 two millimetres away (mean 1.66); the noise averages to 0 ± 0.38 over 7 voxels
  const carried = await Promise.all(carriers.map(near));
  expect(carried.reduce((a, b) => a + b) / carried.length).toBeGreaterThan(1.2);
  for (const value of await Promise.all(others.map(near))) expect(Math.abs(value)).toBeLessThan(1.2);
  // far from the blob, a carrier is noise: mean 0, standard deviation 1 over a slab of the volume
  const map = readNifti(await served(carriers[0]!));
  const slab = Array.from({ length: 99 * 117 }, (_, n) =>
    map.at([-98 + 2 * (n % 99), -134 + 2 * Math.floor(n / 99), 60]),
  );
  const mean = slab.reduce((a, b) => a + b) / slab.length;
  const sd = Math.sqrt(slab.reduce((a, b) => a + (b - mean) ** 2, 0) / slab.length);
  expect([Math.abs(mean) < 0.05, Math.abs(sd - 1) < 0.05]).toEqual([true, true]);
});

it('serves the same bytes for the same seed, in whole and by range, and other noise for another seed', async () => {
  const record = records.find((r) => (r['file_size'] as number) > 0)!;
  const again = await startService({
    records: 2000,
    seed: 1,
    plantedEffect: { paradigm: PARADIGM, at: [30, -60, 40] },
  });
  try {
    const whole = await served(record);
    const sameUrl = (record['file'] as string).replace(service.url, again.url);
    const twice = Buffer.from(await (await fetch(sameUrl)).arrayBuffer());
    expect(sha(twice)).toBe(sha(whole));
    const part = await served(record, { Range: 'bytes=1000000-1999999' });
    expect(sha(part)).toBe(sha(whole.subarray(1_000_000, 2_000_000)));
  } finally {
    await again.close();
  }
  const other = await startService({ records: 2000, seed: 2, plantedEffect: { paradigm: PARADIGM } });
  try {
    const ids = new Set(records.filter((r) => (r['file_size'] as number) > 0).map((r) => r['id']));
    const sameId = [...other.servedRecords()].find((r) => (r['file_size'] as number) > 0 && ids.has(r['id']))!;
    const a = readNifti(await served(records.find((r) => r['id'] === sameId['id'])!));
    const b = readNifti(await served(sameId));
    expect(a.at([0, 0, 0])).not.toBe(b.at([0, 0, 0]));
  } finally {
    await other.close();
  }
});

function sha(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

it('lists a given record (its JSON text as written, spaces too) at the size its planted map is served', async () => {
  const given = '{"id":5,"collection_id":3,"file":"http://neurovault.org/media/images/3/a.nii.gz", "file_size" : 500}';
  const alone = await startService({ data: [given], plantedEffect: { paradigm: PARADIGM } });
  try {
    const [record] = [...alone.servedRecords()];
    expect((await served(record!)).length).toBe(record!['file_size']);
    expect(record!['file_size']).toBe(records.find((r) => (r['file_size'] as number) > 0)!['file_size']);
  } finally {
    await alone.close();
  }
});
