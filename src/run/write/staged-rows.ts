/**
 * Where the write takes each staged row from, each page's columns read (the file, its checksum, a decode) once in
 * whatever order the list was served. A page whose rows lie close together in id order (every page of a list served
 * in id order) is read when the write reaches it, through a small cache. The rows of every other page (a list served
 * as shuffled runs of ids, or rows out of place) are first sorted, in one pass over those pages in staging order, into
 * spill files in the staging folder, one per range of ids: per page, its rows in the range in id order, as a part
 * (column-parts.ts). The write reads each range's file once, when it reaches the range, its parts as one batch of
 * columns (one per way the pages were staged, with or without CSV records). A spill file is not checked: this write
 * made it from checked pages, a write killed leaves it to be replaced by the next one, and a published run's staging
 * is emptied.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Checkpoint } from '../../extract/staging/checkpoint.js';
import type { StagedPage } from '../../extract/staging/journal.js';
import type { RecordIndex } from '../../extract/staging/record-index.js';
import { onStagingFile, spillFileOf } from '../../extract/staging/staging-files.js';
import type { Schema } from 'apache-arrow';
import { decodeParts, encodePart, partRows, partSource, type Part } from '../../load/arrow/column-parts.js';
import {
  decodePageColumns,
  encodePageColumns,
  holdsWhatIsConsumed,
  pageColumnsOf,
  type PageColumns,
  type StagedColumns,
} from '../../load/arrow/page-columns.js';
import type { Table } from '../../schema/table.js';
import { WeightedLru } from '../../text/weighted-lru.js';

/** A staged row: its page's columns (or the columns read back from a range's spill file) and its row in them. */
export interface StagedRow {
  columns: PageColumns;
  row: number;
}

/** Spilled bytes held before they are written out. */
const SPILL_BUFFER_BYTES = 4 << 20;

/** The staged rows of a run, taken in id order. */
export class StagedRows {
  private readonly cache: WeightedLru<{ columns: PageColumns; rowOf: Int32Array }>;
  /** The range whose spill file is read, and per page its part of it with the next row to take. */
  private range = -1;
  private parts = new Map<number, { columns: PageColumns; next: number }>();

  private constructor(
    private readonly checkpoint: Checkpoint,
    private readonly table: Table,
    private readonly pages: readonly StagedPage[],
    /** Rows held: of whole pages read in place, and of a range of ids (one spill file holds its rows spilled). */
    private readonly rangeRows: number,
    /** Per page index whose rows were spilled, its staged columns' schema and category dictionaries. */
    private readonly spilled: readonly (SpilledPage | undefined)[],
    private readonly spill: SpillFiles,
    /** What the write reads of each page. */
    private readonly consumed: StagedColumns,
  ) {
    this.cache = new WeightedLru(rangeRows, (page) => page.columns.batch.numRows);
  }

  /**
   * Spills the rows of the pages of `index` whose rows lie far apart in id order, unless all fit in the cache.
   * `cacheRows` bounds the rows held: whole pages read in place, and as many of a range's spilled rows. A page staged
   * without what the write reads (`consumed`) is encoded again from its staged body as it is read.
   */
  static async open(
    index: RecordIndex,
    checkpoint: Checkpoint,
    table: Table,
    cacheRows: number,
    consumed: StagedColumns,
  ): Promise<StagedRows> {
    const spill = new SpillFiles(checkpoint.dir);
    const { pages } = index;
    // Each position's rank in id order (-1: a row not kept), the pages' positions one after another from start[page].
    const start = new Int32Array(pages.length + 1);
    pages.forEach((page, p) => (start[p + 1] = start[p]! + page.ids.length));
    const rankAt = new Int32Array(start[pages.length]!).fill(-1);
    const first = new Int32Array(pages.length).fill(-1);
    const [last, rows] = [new Int32Array(pages.length), new Int32Array(pages.length)];
    let rank = 0;
    for (const [page, position] of index.inIdOrder()) {
      rankAt[start[page]! + position] = rank;
      if (first[page] === -1) first[page] = rank;
      last[page] = rank++;
      rows[page]! += 1;
    }
    const spilled: (SpilledPage | undefined)[] = [];
    // Pages that all fit in the cache at once are each read once in place, in any order: nothing is spilled then.
    let held = 0;
    for (let p = 0; p < pages.length; p++)
      if (first[p] !== -1) held += pages[p]!.ids.filter((id) => id !== null).length;
    try {
      for (let p = 0; p < pages.length && held > cacheRows; p++) {
        // Rows spanning no more than twice their number in id order are read in place: the cache holds them.
        if (first[p] === -1 || last[p]! - first[p]! < 2 * rows[p]!) continue;
        const { columns, rowOf } = await readPage(checkpoint, table, pages[p]!, consumed);
        const { schema } = columns.batch;
        const key = schema.fields.map((field) => field.name).join('\0');
        const source = partSource(columns.batch);
        spilled[p] = { key, schema, dictionaries: source.dictionaries };
        const ranks = rankAt.subarray(start[p], start[p + 1]);
        const positions = [...ranks.keys()].filter((k) => ranks[k]! >= 0).sort((a, b) => ranks[a]! - ranks[b]!);
        for (let k = 0; k < positions.length;) {
          const range = Math.floor(ranks[positions[k]!]! / cacheRows);
          const picked: number[] = [];
          for (; k < positions.length && Math.floor(ranks[positions[k]!]! / cacheRows) === range; k++)
            picked.push(rowOf[positions[k]!]!);
          await spill.add(range, p, encodePart(source, picked));
        }
      }
      await spill.flush();
    } catch (error) {
      await spill.remove();
      throw error;
    }
    return new StagedRows(checkpoint, table, index.pages, cacheRows, spilled, spill, consumed);
  }

  /** The row of rank `rank` in id order, at `position` of page `page`; asked for in id order. */
  async get(rank: number, page: number, position: number): Promise<StagedRow> {
    if (this.spilled[page] === undefined) {
      const staged = this.pages[page]!;
      const read = () => readPage(this.checkpoint, this.table, staged, this.consumed);
      const { columns, rowOf } = await this.cache.get(staged.file!, read);
      return { columns, row: rowOf[position]! };
    }
    const range = Math.floor(rank / this.rangeRows);
    if (range !== this.range) await this.load(range);
    const part = this.parts.get(page)!;
    return { columns: part.columns, row: part.next++ };
  }

  /** Deletes the spill files. */
  async close(): Promise<void> {
    await this.spill.remove();
  }

  /** Reads a range's spill file: the parts of pages staged alike read back as one batch, each page's rows in turn. */
  private async load(range: number): Promise<void> {
    const bytes = await this.spill.read(range);
    this.parts = new Map();
    this.range = range;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const alike = new Map<string, { schema: Schema; pages: number[]; parts: Part[] }>();
    for (let at = 0; at < bytes.byteLength;) {
      const [page, size] = [view.getUint32(at, true), view.getUint32(at + 4, true)];
      const { key, schema, dictionaries } = this.spilled[page]!;
      let group = alike.get(key);
      if (group === undefined) alike.set(key, (group = { schema, pages: [], parts: [] }));
      group.pages.push(page);
      group.parts.push({ bytes: bytes.subarray(at + 8, at + 8 + size), dictionaries });
      at += 8 + size;
    }
    for (const { schema, pages, parts } of alike.values()) {
      const columns = pageColumnsOf(this.table, decodeParts(schema, parts));
      let next = 0;
      pages.forEach((page, k) => {
        this.parts.set(page, { columns, next });
        next += partRows(parts[k]!.bytes);
      });
    }
  }
}

/** What the write keeps of a spilled page to read its parts back. */
interface SpilledPage {
  /** Its columns' names: pages staged alike (with or without CSV records) share them, and are read back together. */
  key: string;
  schema: Schema;
  dictionaries: Part['dictionaries'];
}

/**
 * A staged page's columns (checked against its journal line), encoded again from its staged body when they lack what
 * the write reads (staged for a run that read less: a resumed run that writes other formats); and the row of each
 * position (-1 for a reject).
 */
async function readPage(checkpoint: Checkpoint, table: Table, page: StagedPage, consumed: StagedColumns) {
  let columns = decodePageColumns(table, await checkpoint.readColumns(page.file!));
  if (!holdsWhatIsConsumed(columns, consumed)) {
    const { body, records } = await checkpoint.readPage(page.file!);
    const { ids, extra, url } = page;
    columns = decodePageColumns(table, encodePageColumns(table, { records, ids, extra, body, url }, consumed)!);
  }
  const rowOf = new Int32Array(page.ids.length);
  let row = 0;
  for (let position = 0; position < page.ids.length; position++)
    rowOf[position] = page.ids[position] === null ? -1 : row++;
  return { columns, rowOf };
}

/**
 * The spill files in the staging folder: each part is the page's index and its size (8 bytes, keeping 8-byte
 * alignment), then its columns. A refused call is the staging's error, naming the file (a full disk while spilling):
 * the staged pages stay as they are, and a rerun with room resumes from them.
 */
class SpillFiles {
  private pending = new Map<number, Uint8Array[]>();
  private bytes = 0;

  /** The ranges whose file this write made (or began to). */
  private readonly written = new Set<number>();

  constructor(private readonly dir: string) {}

  async add(range: number, page: number, columns: Uint8Array): Promise<void> {
    const head = Buffer.alloc(8);
    head.writeUInt32LE(page, 0);
    head.writeUInt32LE(columns.byteLength, 4);
    let parts = this.pending.get(range);
    if (parts === undefined) this.pending.set(range, (parts = []));
    parts.push(head, columns);
    this.bytes += 8 + columns.byteLength;
    if (this.bytes > SPILL_BUFFER_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    for (const [range, parts] of this.pending) {
      // A range's first write replaces the file a write killed before may have left.
      const flag = this.written.has(range) ? 'a' : 'w';
      this.written.add(range);
      // writeFile writes every part whole: a write, or writev, may write part of its bytes on a full disk, not failing.
      await this.call(range, 'write to', (path) => writeFile(path, parts, { flag }));
    }
    this.pending.clear();
    this.bytes = 0;
  }

  read(range: number): Promise<Buffer> {
    return this.call(range, 'read', (path) => readFile(path));
  }

  async remove(): Promise<void> {
    for (const range of this.written) await this.call(range, 'remove', (path) => rm(path, { force: true }));
  }

  private call<T>(range: number, action: string, call: (path: string) => Promise<T>): Promise<T> {
    const path = join(this.dir, spillFileOf(range));
    return onStagingFile(this.dir, path, action, () => call(path));
  }
}
