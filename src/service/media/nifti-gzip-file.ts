/**
 * The `.nii.gz` file the bundled service serves for an image: a minimal NIfTI-1 image (a 2×2×2 float32 volume whose
 * values follow from the id) compressed by zlib, then zeros in stored deflate blocks up to exactly `file_size` bytes,
 * all inside one gzip stream whose CRC-32 and length trailer cover every byte. Any byte range is computed on the fly
 * (a gigabyte file costs no memory), and the same id and size always give the same bytes. A volume of the
 * planted-effect knob goes in stored blocks instead, so that its file's size follows from its grid alone.
 */
import { endianness } from 'node:os';
import { constants, deflateRawSync } from 'node:zlib';
import { crc32WithZeros } from './crc32-zeros.js';
import { hash32 } from '../basics/random.js';
import type { ServedFile } from './served-file.js';

/** NIfTI-1: a 348-byte header, then 4 bytes of extension flags, then the voxels at offset 352. */
const HEADER_BYTES = 348;
const VOX_OFFSET = 352;
/** A stored deflate block holds at most 65,535 bytes after its 5-byte header. */
const STORED_MAX = 65_535;
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]); // deflate, no flags, no mtime, Unix
const TRAILER_BYTES = 8;
/** Bytes read out at a time. */
const CHUNK = 64 * 1024;

/** A volume's grid: its shape and the first three rows of its affine (voxel indices to millimetres). */
export interface Grid {
  shape: readonly [number, number, number];
  affine: readonly (readonly number[])[];
}

/** The grid of the default service's images: 2×2×2 voxels of 2 mm. */
const TINY_GRID: Grid = {
  shape: [2, 2, 2],
  affine: [
    [2, 0, 0, -2],
    [0, 2, 0, -2],
    [0, 0, 2, -2],
  ],
};

/** Bytes of the uncompressed NIfTI-1 image of a grid. */
function imageBytes(grid: Grid): number {
  return VOX_OFFSET + 4 * grid.shape.reduce((n, d) => n * d, 1);
}

/**
 * The uncompressed NIfTI-1 image of an id: header, extension flags and float32 voxels (x fastest), by default the
 * 2×2×2 whose values follow from the id.
 */
export function niftiImage(id: number, grid: Grid = TINY_GRID, voxels?: Float32Array): Buffer {
  const b = Buffer.alloc(imageBytes(grid));
  b.writeInt32LE(HEADER_BYTES, 0); // sizeof_hdr
  [3, ...grid.shape, 1, 1, 1, 1].forEach((d, i) => b.writeInt16LE(d, 40 + 2 * i)); // dim
  b.writeInt16LE(16, 70); // datatype: float32
  b.writeInt16LE(32, 72); // bitpix
  const sizes = grid.affine.map((row, r) => Math.abs(row[r]!));
  [1, ...sizes, 1, 1, 1, 1].forEach((d, i) => b.writeFloatLE(d, 76 + 4 * i)); // pixdim (qfac, voxel size in mm)
  b.writeFloatLE(VOX_OFFSET, 108); // vox_offset
  b.writeFloatLE(1, 112); // scl_slope
  b.writeUInt8(2 | 8, 123); // xyzt_units: mm, s
  b.write(`img-etl bundled service image ${id}`.slice(0, 79), 148, 'latin1'); // descrip
  b.writeInt16LE(4, 254); // sform_code: MNI152
  grid.affine.forEach((row, r) => row.forEach((v, c) => b.writeFloatLE(v, 280 + 16 * r + 4 * c)));
  b.write('n+1\0', 344, 'latin1'); // magic: header and data in one file
  const values = voxels ?? Float32Array.from({ length: 8 }, (_, i) => (hash32(id, i, 0x7715) % 2001) / 100 - 10);
  const data = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  if (endianness() === 'BE') data.swap32(); // NIfTI-1 files of this header are little-endian
  data.copy(b, VOX_OFFSET);
  return b;
}

/**
 * A `.nii.gz` of exactly `size` bytes for image `id` (or of the smallest size such a file can have, when `size` is
 * below it); a `stored` image (the planted-effect knob's) instead of the id's own, in stored blocks.
 */
export function niftiGzipFile(id: number, size: number, stored?: Buffer): ServedFile {
  const layout = gzipLayout(stored ?? niftiImage(id), size, stored !== undefined);
  return {
    size: layout.total,
    contentType: 'application/octet-stream',
    read: (start, end) => readGzip(layout, start, end),
  };
}

/** The size of the smallest `.nii.gz` holding the image of a grid in stored blocks (a planted-effect map's file). */
export function storedGzipSize(grid: Grid): number {
  const bytes = imageBytes(grid);
  return GZIP_HEADER.length + bytes + 5 * Math.ceil(bytes / STORED_MAX) + 5 + TRAILER_BYTES;
}

/**
 * The layout of a gzip stream of `image` (compressed, or `stored`) and zeros of exactly `size` bytes (or the smallest
 * it can be): the gzip header and the compressed image, ending on a byte boundary; `blocks` stored blocks of `base`
 * zeros, the first `longer` of them one more; the trailer (CRC-32 and length of every uncompressed byte); the `total`.
 */
function gzipLayout(image: Buffer, size: number, stored: boolean) {
  // A sync flush ends the compressed image on a byte boundary without a final block, so stored blocks can follow.
  const compressed = stored
    ? Buffer.concat([...storedBlocks(image)])
    : deflateRawSync(image, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const head = Buffer.concat([GZIP_HEADER, compressed]);
  const room = Math.max(5, size - head.length - TRAILER_BYTES); // bytes for the stored blocks, 5 bytes of header each
  const blocks = Math.max(1, Math.ceil(room / (STORED_MAX + 5)));
  const zeros = room - 5 * blocks;
  const base = Math.floor(zeros / blocks);
  const longer = zeros % blocks; // the first `longer` blocks hold one byte more
  const total = head.length + room + TRAILER_BYTES;
  const trailer = Buffer.alloc(TRAILER_BYTES);
  trailer.writeUInt32LE(crc32WithZeros(image, zeros), 0);
  trailer.writeUInt32LE((image.length + zeros) % 2 ** 32, 4);
  return { head, blocks, base, longer, trailer, total };
}

/** Bytes [start, end) of the file, in chunks of at most CHUNK bytes; the blocks before `start` are skipped unmade. */
function* readGzip(layout: ReturnType<typeof gzipLayout>, start: number, end: number): Generator<Buffer> {
  let at = 0;
  const emit = function* (bytes: Buffer | number): Generator<Buffer> {
    const length = typeof bytes === 'number' ? bytes : bytes.length;
    const from = Math.max(start, at);
    const to = Math.min(end, at + length);
    for (let p = from; p < to; p += CHUNK) {
      const n = Math.min(CHUNK, to - p);
      yield typeof bytes === 'number' ? Buffer.alloc(n) : bytes.subarray(p - at, p - at + n);
    }
    at += length;
  };
  yield* emit(layout.head);
  for (let i = 0; i < layout.blocks && at < end; i++) {
    const length = layout.base + (i < layout.longer ? 1 : 0);
    if (at + 5 + length <= start) {
      at += 5 + length;
      continue;
    }
    yield* emit(storedHeader(length, i === layout.blocks - 1));
    yield* emit(length);
  }
  if (at < end) yield* emit(layout.trailer);
}

/** An image cut into stored deflate blocks, none of them final: each block's header, then its bytes. */
function* storedBlocks(image: Buffer): Generator<Buffer> {
  for (let p = 0; p < image.length; p += STORED_MAX) {
    const bytes = image.subarray(p, p + STORED_MAX);
    yield storedHeader(bytes.length, false);
    yield bytes;
  }
}

/** The 5-byte header of a stored deflate block of `length` bytes; BFINAL on the `last`. */
function storedHeader(length: number, last: boolean): Buffer {
  const header = Buffer.alloc(5);
  header[0] = last ? 1 : 0; // BFINAL on the last block, BTYPE 00: stored
  header.writeUInt16LE(length, 1);
  header.writeUInt16LE(~length & 0xffff, 3);
  return header;
}
