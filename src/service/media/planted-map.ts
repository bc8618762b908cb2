/**
 * The maps of the planted-effect knob (`PlantedEffect`): float32 volumes on the grid of nilearn's
 * `load_mni152_template(resolution=2)` holding standard normal noise drawn from the seed and the id, to which the maps
 * that carry the effect add a Gaussian blob, cut to zero beyond SUPPORT_MM so that where the effect lies is exact.
 */
import { hash32, Random } from '../basics/random.js';
import { PLANTED_DEFAULTS, type PlantedEffect } from '../service-options.js';
import { type Grid, niftiGzipFile, niftiImage, storedGzipSize } from './nifti-gzip-file.js';
import type { ServedFile } from './served-file.js';

/** The shape and affine of nilearn 0.14's `load_mni152_template(resolution=2)`, read once from nilearn. */
export const MNI152_2MM: Grid = {
  shape: [99, 117, 95],
  affine: [
    [2, 0, 0, -98],
    [0, 2, 0, -134],
    [0, 0, 2, -72],
  ],
};
/** The size of every planted-effect map's file. */
export const PLANTED_FILE_SIZE = storedGzipSize(MNI152_2MM);
/** The blob's standard deviation; it is zero farther than SUPPORT_MM from its centre. */
const SIGMA_MM = 3;
const SUPPORT_MM = 3 * SIGMA_MM;

/** The knob with its defaults filled in; throws with the bad value in the message. */
export function resolvePlantedEffect(effect: PlantedEffect): Required<PlantedEffect> {
  const { paradigm, at = PLANTED_DEFAULTS.at, z = PLANTED_DEFAULTS.z } = effect;
  if (typeof paradigm !== 'string' || paradigm === '')
    throw new Error(`service: plantedEffect.paradigm must be a Cognitive Atlas id, got ${JSON.stringify(paradigm)}`);
  if (at.length !== 3 || !at.every((v) => Number.isFinite(v)))
    throw new Error(`service: plantedEffect.at must be three millimetres [x, y, z], got ${JSON.stringify(at)}`);
  if (!(Number.isFinite(z) && z >= 0))
    throw new Error(`service: plantedEffect.z must be a non-negative number, got ${JSON.stringify(z)}`);
  return { paradigm, at, z };
}

/** Whether a record's map carries the effect: a group-level Z map of the knob's paradigm. */
export function carriesEffect(record: Record<string, unknown>, effect: Required<PlantedEffect>): boolean {
  const { map_type: type, analysis_level: level, cognitive_paradigm_cogatlas_id: paradigm } = record;
  return type === 'Z map' && level === 'group' && paradigm === effect.paradigm;
}

/**
 * The file of image `id` under the knob, `size` bytes (PLANTED_FILE_SIZE, more under the wrong-length fault), with
 * the blob when given the `effect`. Made whole for each request: a map is 4.4 MB, made in well under a second.
 */
export function plantedFile(seed: number, id: number, size: number, effect?: Required<PlantedEffect>): ServedFile {
  const [nx, ny, nz] = MNI152_2MM.shape;
  const voxels = new Float32Array(nx * ny * nz);
  const rng = new Random(hash32(seed, id, 0x91a7));
  for (let i = 0; i < voxels.length; i += 2) {
    // Box-Muller: two uniform draws give two independent standard normal values.
    const radius = Math.sqrt(-2 * Math.log(1 - rng.next()));
    const angle = 2 * Math.PI * rng.next();
    voxels[i] = radius * Math.cos(angle);
    if (i + 1 < voxels.length) voxels[i + 1] = radius * Math.sin(angle);
  }
  if (effect !== undefined) addBlob(voxels, effect);
  return niftiGzipFile(id, size, niftiImage(id, MNI152_2MM, voxels));
}

/** Adds the effect's blob to the voxels within SUPPORT_MM of its centre. */
function addBlob(voxels: Float32Array, effect: Required<PlantedEffect>): void {
  const [nx, ny] = MNI152_2MM.shape;
  // Each axis's voxel indices within reach of the centre, with their distance from it in millimetres.
  const [xs, ys, zs] = MNI152_2MM.shape.map((n, axis) => {
    const [scale, offset] = [MNI152_2MM.affine[axis]![axis]!, MNI152_2MM.affine[axis]![3]!];
    const near: [number, number][] = [];
    for (let index = 0; index < n; index++) {
      const off = scale * index + offset - effect.at[axis]!;
      if (Math.abs(off) <= SUPPORT_MM) near.push([index, off]);
    }
    return near;
  }) as [[number, number][], [number, number][], [number, number][]];
  for (const [z, dz] of zs)
    for (const [y, dy] of ys)
      for (const [x, dx] of xs) {
        const r2 = dx * dx + dy * dy + dz * dz;
        if (r2 <= SUPPORT_MM ** 2) voxels[x + nx * (y + ny * z)]! += effect.z * Math.exp(-r2 / (2 * SIGMA_MM ** 2));
      }
}
