/**
 * A snapshot's index (`images.index`, written with the images): every row's id and the 64-bit hash of its values
 * (row-hash.ts), in file order, which is ascending id order. Two snapshots' indexes tell which records were added,
 * removed or are the same by a merge of their ids and a comparison of hashes, without decoding the data files; only
 * the rows whose hashes differ need their values read (index-diff.ts).
 *
 * The file, little-endian: the 8 bytes `IMGETLIX`, a uint32 header length, the header (JSON: the hash's version and
 * the images' schema version), zero bytes to a multiple of 8, then 16 bytes a row: the id (int64) and the hash
 * (uint64). 8 MB for 500,000 records. It is written as the rows pass and read a chunk at a time, so memory holds one
 * chunk of it (1 MiB), never the whole index.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { AtomicFile } from '../load/atomic-file.js';
import type { SinkResult } from '../load/sink-result.js';
import { FILE_NAMES } from '../run/formats.js';
import { IMAGES } from '../schema/columns.js';
import { DiffError } from './diff-error.js';
import type { RowBatch } from '../schema/row.js';
import { ROW_HASH_VERSION, RowHasher } from './row-hash.js';

const MAGIC = 'IMGETLIX';
/** Rows in a chunk written or read at once (1 MiB). */
const CHUNK_ROWS = 1 << 16;
/** 32-bit words a row: the id's two, the hash's two. */
const WORDS = 4;
const TWO_32 = 4294967296;

/**
 * The words of `bytes` in little-endian order, swapped in place when the host is big-endian (a Uint32Array is in the
 * host's order; the file is little-endian wherever it is written or read). Swapping twice gives the words back.
 */
export function littleEndianWords(bytes: Uint8Array, hostBigEndian = endianness() === 'BE'): Uint8Array {
  if (hostBigEndian) Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).swap32();
  return bytes;
}

/** The header's text, the same in every index this version writes. */
function headerBytes(): Buffer {
  const json = Buffer.from(JSON.stringify({ hash: ROW_HASH_VERSION, schema_version: IMAGES.schemaVersion }), 'utf8');
  const head = Buffer.alloc(align8(12 + json.length));
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(json.length, 8);
  json.copy(head, 12);
  return head;
}

/** Writes a run's index into a folder as the rows pass on their way to the writers; `finish` publishes it. */
export class SnapshotIndexWriter {
  private readonly hasher = new RowHasher(IMAGES);
  private chunk = new Uint32Array(WORDS * CHUNK_ROWS);
  private inChunk = 0;
  private rows = 0;
  private last = -1;
  /** Why the rows give no index (an id out of order), once one did. */
  private broken: string | undefined;

  private constructor(private readonly file: AtomicFile) {}

  /** Starts `dir`/images.index. */
  static async create(dir: string): Promise<SnapshotIndexWriter> {
    const file = await AtomicFile.create(join(dir, FILE_NAMES.index));
    await file.write(headerBytes());
    return new SnapshotIndexWriter(file);
  }

  /** A stage that passes batches through unchanged, adding their rows in order. */
  async *observe(source: AsyncIterable<RowBatch>): AsyncIterable<RowBatch> {
    for await (const batch of source) {
      for (const row of batch.rows) {
        if (this.broken !== undefined) break;
        const id = row['id'];
        if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0 || id <= this.last) {
          this.broken = `row ${this.rows + 1} has id ${String(id)} after ${this.last}`;
          break;
        }
        const at = WORDS * this.inChunk;
        this.chunk[at] = id % TWO_32;
        this.chunk[at + 1] = Math.floor(id / TWO_32);
        this.hasher.hash(row, this.chunk, 2 * this.inChunk + 1); // words at + 2 and at + 3
        [this.last, this.rows, this.inChunk] = [id, this.rows + 1, this.inChunk + 1];
        if (this.inChunk === CHUNK_ROWS) await this.writeChunk();
      }
      yield batch;
    }
  }

  /** Publishes the index; undefined (and no file) when the rows' ids were not ascending. */
  async finish(): Promise<SinkResult | undefined> {
    if (this.broken !== undefined) {
      await this.file.abort();
      return undefined;
    }
    try {
      await this.writeChunk();
      return { format: 'index', path: this.file.path, rows: this.rows, ...(await this.file.commit()) };
    } catch (error) {
      await this.file.abort();
      throw error;
    }
  }

  /** Removes the file being written (the run failed). */
  async abort(): Promise<void> {
    await this.file.abort();
  }

  private async writeChunk(): Promise<void> {
    const bytes = new Uint8Array(this.chunk.buffer, 0, 4 * WORDS * this.inChunk);
    this.chunk = new Uint32Array(WORDS * CHUNK_ROWS); // the file keeps the bytes until it flushes them
    this.inChunk = 0;
    await this.file.write(littleEndianWords(bytes));
  }
}

/** Reads an index row by row, a chunk at a time. */
export class SnapshotIndexReader {
  /** Words of the rows of the current chunk. */
  private chunk = new Uint32Array(0);
  private inChunk = 0;
  private chunkRows = 0;
  private read = 0;

  private constructor(
    /** The index file. */
    readonly path: string,
    /** Rows in the index. */
    readonly rows: number,
    private readonly handle: FileHandle,
    private readonly start: number,
  ) {}

  /**
   * Opens the index of the snapshot folder `folder`, or says why it has none usable here: no file (a snapshot of an
   * earlier version), another hash or schema version, or a file that does not read as one.
   */
  static async open(folder: string): Promise<SnapshotIndexReader | { none: string }> {
    const path = join(folder, FILE_NAMES.index);
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (cause) {
      return { none: `${path} cannot be read (${(cause as NodeJS.ErrnoException).code ?? String(cause)})` };
    }
    const refuse = async (why: string) => {
      await handle.close();
      return { none: `${path} is not an index this version reads: ${why}` };
    };
    try {
      const { size } = await handle.stat();
      const expected = headerBytes();
      const head = Buffer.alloc(expected.length);
      await handle.read(head, 0, head.length, 0);
      if (!head.equals(expected)) return await refuse(`its header is not ${JSON.stringify(head.toString('latin1'))}`);
      const rows = (size - head.length) / 16;
      if (!Number.isInteger(rows)) return await refuse(`${size} bytes are not whole rows`);
      return new SnapshotIndexReader(path, rows, handle, head.length);
    } catch (cause) {
      return refuse(String(cause));
    }
  }

  /** The id of the current row (or of row `r` of the chunk read); call `ready` first. */
  id(r = this.inChunk): number {
    return this.chunk[WORDS * r]! + this.chunk[WORDS * r + 1]! * TWO_32;
  }

  /** Whether the current rows of this index and `other` have the same hash. */
  sameHash(other: SnapshotIndexReader): boolean {
    const [a, b] = [WORDS * this.inChunk + 2, WORDS * other.inChunk + 2];
    return this.chunk[a] === other.chunk[b] && this.chunk[a + 1] === other.chunk[b + 1];
  }

  /** The current row's place in the file. */
  get position(): number {
    return this.read - this.chunkRows + this.inChunk;
  }

  /** Whether the chunk read holds a current row. */
  hasRow(): boolean {
    return this.inChunk < this.chunkRows;
  }

  /**
   * Whether there is a current row, reading the next chunk when the last one is used up; a DiffError when the file
   * ends early or its ids do not ascend.
   */
  async ready(): Promise<boolean> {
    if (this.inChunk < this.chunkRows) return true;
    const rows = Math.min(CHUNK_ROWS, this.rows - this.read);
    if (rows === 0) return false;
    const last = this.chunkRows === 0 ? -1 : this.id(this.chunkRows - 1);
    this.chunk = new Uint32Array(WORDS * rows);
    const bytes = new Uint8Array(this.chunk.buffer);
    const { bytesRead } = await this.handle.read(bytes, 0, bytes.length, this.start + 16 * this.read);
    const fail = (why: string) => new DiffError({ code: 'DIFF_UNREADABLE', message: `diff: ${this.path} ${why}` });
    if (bytesRead !== bytes.length) throw fail(`ended ${bytes.length - bytesRead} bytes early`);
    littleEndianWords(bytes);
    [this.inChunk, this.chunkRows, this.read] = [0, rows, this.read + rows];
    for (let r = 0, previous = last; r < rows; previous = this.id(r++))
      if (!(this.id(r) > previous)) throw fail(`is not in ascending id order at row ${this.read - rows + r + 1}`);
    return true;
  }

  /** Moves to the next row. */
  next(): void {
    this.inChunk++;
  }

  /** Closes the file. */
  async close(): Promise<void> {
    await this.handle.close();
  }
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
