/**
 * Reading a snapshot's index (snapshot-index.ts) row by row: for a diff by ids and hashes, and for the rows an
 * incremental run carries over from its base, each checked against it.
 */
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { FILE_NAMES } from '../../snapshot/formats.js';
import { ROW_HASH_VERSION } from './row-hash.js';
import {
  align8,
  INDEX_CHUNK_ROWS,
  INDEX_ROW_WORDS,
  indexHeaderBytes,
  littleEndianWords,
  TWO_32,
} from './snapshot-index.js';
import { DiffError } from '../../snapshot/diff-error.js';
import { openRegularFile, whyUnreadable } from '../../load/file-system/read-regular-file.js';

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
    /** The schema version of the table whose rows it hashes: two indexes merge only when theirs are equal. */
    readonly schemaVersion: string,
  ) {}

  /**
   * Opens the index of the snapshot folder `folder`, or says why it has none usable here: no file (a snapshot of an
   * earlier version), another hash or schema version, or a file that does not read as one.
   */
  static async open(folder: string): Promise<SnapshotIndexReader | { none: string }> {
    const path = join(folder, FILE_NAMES.index);
    const opened = await openRegularFile(path, { followLink: true }).catch((cause: unknown) => ({
      none: whyUnreadable(path, cause),
    }));
    if ('none' in opened) return opened;
    const { handle, size } = opened;
    const refuse = async (why: string) => {
      await handle.close();
      return { none: `${path} is not an index this version reads: ${why}` };
    };
    try {
      const schemaVersion = await readSchemaVersion(handle, size);
      const expected = schemaVersion === undefined ? indexHeaderBytes() : indexHeaderBytes(schemaVersion);
      const head = Buffer.alloc(Math.min(expected.length, size));
      await handle.read(head, 0, head.length, 0);
      if (schemaVersion === undefined || !head.equals(expected))
        return await refuse(`its header is not ${JSON.stringify(expected.toString('latin1'))}`);
      const rows = (size - head.length) / 16;
      if (!Number.isInteger(rows)) return await refuse(`${size} bytes are not whole rows`);
      return new SnapshotIndexReader(path, rows, handle, head.length, schemaVersion);
    } catch (cause) {
      return refuse(String(cause));
    }
  }

  /** The id of the current row (or of row `r` of the chunk read); call `ready` first. */
  id(r = this.inChunk): number {
    return this.chunk[INDEX_ROW_WORDS * r]! + this.chunk[INDEX_ROW_WORDS * r + 1]! * TWO_32;
  }

  /** Whether the current rows of this index and `other` have the same hash. */
  sameHash(other: SnapshotIndexReader): boolean {
    const [a, b] = [INDEX_ROW_WORDS * this.inChunk + 2, INDEX_ROW_WORDS * other.inChunk + 2];
    return this.chunk[a] === other.chunk[b] && this.chunk[a + 1] === other.chunk[b + 1];
  }

  /** Whether the current row's hash is `hash` (two words, as RowHasher writes them). */
  hashIs(hash: Uint32Array): boolean {
    const at = INDEX_ROW_WORDS * this.inChunk + 2;
    return this.chunk[at] === hash[0] && this.chunk[at + 1] === hash[1];
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
    const rows = Math.min(INDEX_CHUNK_ROWS, this.rows - this.read);
    if (rows === 0) return false;
    const last = this.chunkRows === 0 ? -1 : this.id(this.chunkRows - 1);
    this.chunk = new Uint32Array(INDEX_ROW_WORDS * rows);
    const bytes = new Uint8Array(this.chunk.buffer);
    const { bytesRead } = await this.handle.read(bytes, 0, bytes.length, this.start + 16 * this.read);
    const fail = (why: string) => DiffError.of('DIFF_UNREADABLE', `diff: ${this.path} ${why}`);
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

/** The schema version an index's header names with this version's hash, or undefined when it names none. */
async function readSchemaVersion(handle: FileHandle, size: number): Promise<string | undefined> {
  if (size < 12) return undefined;
  const start = Buffer.alloc(12);
  await handle.read(start, 0, 12, 0);
  const length = start.readUInt32LE(8);
  if (start.toString('latin1', 0, 8) !== 'IMGETLIX' || align8(12 + length) > size) return undefined;
  const json = Buffer.alloc(length);
  await handle.read(json, 0, length, 12);
  try {
    const header = JSON.parse(json.toString('utf8')) as Record<string, unknown> | null;
    const version = header?.['schema_version'];
    return header?.['hash'] === ROW_HASH_VERSION && typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}
