/** Writing a run's snapshot index (snapshot-index.ts) as its rows pass on their way to the writers. */
import { join } from 'node:path';
import { AtomicFile } from '../../load/file-system/atomic-file.js';
import type { SinkResult } from '../../load/sink-result.js';
import { IMAGES } from '../../schema/columns.js';
import type { Table } from '../../schema/table.js';
import type { RowBatch } from '../../schema/row.js';
import { FILE_NAMES } from '../../snapshot/formats.js';
import { RowHasher } from './row-hash.js';
import { INDEX_CHUNK_ROWS, INDEX_ROW_WORDS, indexHeaderBytes, littleEndianWords, TWO_32 } from './snapshot-index.js';

/** Writes a run's index into a folder as the rows pass on their way to the writers; `finish` publishes it. */
export class SnapshotIndexWriter {
  private readonly hasher: RowHasher;
  private chunk = new Uint32Array(INDEX_ROW_WORDS * INDEX_CHUNK_ROWS);
  private inChunk = 0;
  private rows = 0;
  private last = -1;
  /** Why the rows give no index (an id out of order), once one did. */
  private broken: string | undefined;

  private constructor(
    private readonly file: AtomicFile,
    table: Table,
  ) {
    this.hasher = new RowHasher(table);
  }

  /** Starts `dir`/images.index of rows of `table` (default the images; a pipeline's adds its derived columns). */
  static async create(dir: string, table: Table = IMAGES): Promise<SnapshotIndexWriter> {
    const file = await AtomicFile.create(join(dir, FILE_NAMES.index));
    await file.write(indexHeaderBytes(table.schemaVersion));
    return new SnapshotIndexWriter(file, table);
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
        const at = INDEX_ROW_WORDS * this.inChunk;
        this.chunk[at] = id % TWO_32;
        this.chunk[at + 1] = Math.floor(id / TWO_32);
        this.hasher.hash(row, this.chunk, 2 * this.inChunk + 1); // words at + 2 and at + 3
        [this.last, this.rows, this.inChunk] = [id, this.rows + 1, this.inChunk + 1];
        if (this.inChunk === INDEX_CHUNK_ROWS) await this.writeChunk();
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
    const bytes = new Uint8Array(this.chunk.buffer, 0, 4 * INDEX_ROW_WORDS * this.inChunk);
    this.chunk = new Uint32Array(INDEX_ROW_WORDS * INDEX_CHUNK_ROWS); // the file keeps the bytes until it flushes them
    this.inChunk = 0;
    await this.file.write(littleEndianWords(bytes));
  }
}
