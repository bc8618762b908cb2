/**
 * A snapshot's index (`images.index`, written with the images): every row's id and the 64-bit hash of its values
 * (row-hash.ts), in file order, which is ascending id order. Two snapshots' indexes tell which records were added,
 * removed or are the same by a merge of their ids and a comparison of hashes, without decoding the data files; only
 * the rows whose hashes differ need their values read (index-diff.ts).
 *
 * The file, little-endian: the 8 bytes `IMGETLIX`, a uint32 header length, the header (JSON: the hash's version, the
 * images' schema version, the rows), zero bytes to a multiple of 8, the ids (int64 each), the hashes (uint64 each).
 * 16 bytes a row: 8 MB for 500,000 records.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AtomicFile } from '../load/atomic-file.js';
import type { SinkResult } from '../load/sink-result.js';
import { FILE_NAMES } from '../run/formats.js';
import { IMAGES } from '../schema/columns.js';
import type { Row, RowBatch } from '../schema/row.js';
import { ROW_HASH_VERSION, RowHasher } from './row-hash.js';

const INDEX_FILE = FILE_NAMES.index;

const MAGIC = 'IMGETLIX';
const FIRST_CAPACITY = 1 << 16;

/** Ids and row hashes of a snapshot, in file order. */
export interface SnapshotIndex {
  /** Rows. */
  readonly rows: number;
  /** Each row's id (safe integers), ascending. */
  readonly ids: Float64Array;
  /** Each row's hash as two words: row r's low word at 2r, high word at 2r + 1. */
  readonly hashes: Uint32Array;
}

/** What the header says. */
interface IndexHeader {
  hash: string;
  schema_version: string;
  rows: number;
}

/** Builds the index of the rows written, as they pass on their way to the writers. */
export class SnapshotIndexBuilder {
  private readonly hasher = new RowHasher(IMAGES);
  private ids = new Float64Array(FIRST_CAPACITY);
  private hashes = new Uint32Array(2 * FIRST_CAPACITY);
  private rows = 0;
  /** Why the rows give no index (an id out of order or not a safe integer), once one did. */
  private broken: string | undefined;

  /** A stage that passes batches through unchanged, adding their rows. */
  async *observe(source: AsyncIterable<RowBatch>): AsyncIterable<RowBatch> {
    for await (const batch of source) {
      for (const row of batch.rows) this.add(row);
      yield batch;
    }
  }

  /** Adds one row, the next in file order. */
  add(row: Row): void {
    if (this.broken !== undefined) return;
    const id = row['id'];
    const last = this.rows === 0 ? -Infinity : this.ids[this.rows - 1]!;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= last) {
      this.broken = `row ${this.rows + 1} has id ${String(id)} after ${last}`;
      return;
    }
    if (this.rows === this.ids.length) this.grow();
    this.ids[this.rows] = id;
    this.hasher.hash(row, this.hashes, this.rows);
    this.rows++;
  }

  /** The index of the rows added; undefined when they cannot have one (ids not ascending). */
  index(): SnapshotIndex | undefined {
    if (this.broken !== undefined) return undefined;
    const rows = this.rows;
    return { rows, ids: this.ids.subarray(0, rows), hashes: this.hashes.subarray(0, 2 * rows) };
  }

  private grow(): void {
    const ids = new Float64Array(2 * this.ids.length);
    ids.set(this.ids);
    const hashes = new Uint32Array(2 * this.hashes.length);
    hashes.set(this.hashes);
    [this.ids, this.hashes] = [ids, hashes];
  }
}

/** Writes `index` to `dir`/images.index atomically. */
export async function writeSnapshotIndex(dir: string, index: SnapshotIndex): Promise<SinkResult> {
  const path = join(dir, INDEX_FILE);
  const header: IndexHeader = { hash: ROW_HASH_VERSION, schema_version: IMAGES.schemaVersion, rows: index.rows };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const start = align8(12 + json.length);
  const head = Buffer.alloc(start);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(json.length, 8);
  json.copy(head, 12);
  const ids = new BigInt64Array(index.rows);
  for (let r = 0; r < index.rows; r++) ids[r] = BigInt(index.ids[r]!);
  const file = await AtomicFile.create(path);
  try {
    await file.write(head);
    await file.write(new Uint8Array(ids.buffer));
    await file.write(new Uint8Array(index.hashes.buffer, index.hashes.byteOffset, 8 * index.rows));
    return { format: 'index', path, rows: index.rows, ...(await file.commit()) };
  } catch (error) {
    await file.abort();
    throw error;
  }
}

/**
 * The index of the snapshot folder `folder`, or why it has none usable here: no file (a snapshot of an earlier
 * version), another hash or schema version, or a file that does not read as one.
 */
export async function readSnapshotIndex(folder: string): Promise<SnapshotIndex | { none: string }> {
  const path = join(folder, INDEX_FILE);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (cause) {
    return { none: `${path} cannot be read (${(cause as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  const bad = (why: string) => ({ none: `${path} is not a snapshot index: ${why}` });
  if (bytes.length < 12 || bytes.toString('latin1', 0, 8) !== MAGIC) return bad('no IMGETLIX at its start');
  const length = bytes.readUInt32LE(8);
  let header: Partial<IndexHeader>;
  try {
    header = JSON.parse(bytes.toString('utf8', 12, 12 + length)) as Partial<IndexHeader>;
  } catch {
    return bad('its header is not JSON');
  }
  if (header.hash !== ROW_HASH_VERSION || header.schema_version !== IMAGES.schemaVersion) {
    const was = `hash ${String(header.hash)}, schema version ${String(header.schema_version)}`;
    return { none: `${path} was written by another version (${was})` };
  }
  const rows = header.rows;
  const start = align8(12 + length);
  if (typeof rows !== 'number' || !Number.isSafeInteger(rows) || bytes.length !== start + 16 * rows)
    return bad(`${bytes.length} bytes for ${String(rows)} rows`);
  const copy = new Uint8Array(16 * rows); // aligned for the typed arrays
  copy.set(bytes.subarray(start));
  const stored = new BigInt64Array(copy.buffer, 0, rows);
  const ids = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    ids[r] = Number(stored[r]!);
    if (r > 0 && !(ids[r]! > ids[r - 1]!)) return bad(`row ${r + 1} has id ${ids[r]} after ${ids[r - 1]}`);
  }
  return { rows, ids, hashes: new Uint32Array(copy.buffer, 8 * rows, 2 * rows) };
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
