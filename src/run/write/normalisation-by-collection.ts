/**
 * What normalisation replaced, per collection: the manifest's counts describe the rows a snapshot holds, and an
 * incremental run holds rows it never normalised (carried over from its base, whose files keep only the nulls, not
 * whether a null was served, a sentinel or an empty string). A `--snapshot` run keeps its counts per collection in
 * `normalisation.json`; the next run adds those of the collections it carries over to those of the rows it read.
 *
 * The file: `{"version":1,"collections":[{"collection_id":12,"sentinel_to_null":{…},"empty_to_null":{…},
 * "records_with_extra":3},…]}`, only collections with a count, in ascending id order, the rows of no collection
 * (`collection_id` null) last; columns in the table's order. The same rows give the same bytes, however they were
 * gathered, so an incremental run's file equals a full run's.
 */
import { readRegularFile } from '../../load/file-system/read-regular-file.js';
import { writeTextAtomic } from '../../load/file-system/write-text-atomic.js';
import type { SinkResult } from '../../load/sink-result.js';
import { addCounts, emptyNormalisationCounts, type NormalisationCounts } from '../../schema/normalisation-counts.js';
import type { Table } from '../../schema/table.js';

/** The file's version: a base whose file has another is not built on. */
const VERSION = 1;
/** Distinct texts of counts kept parsed. */
const MAX_PARSED = 10_000;

/** A collection's id, or null for the rows of no collection. */
export type CollectionKey = number | null;

/** Counts of normalisation per collection, added up as rows pass; the run's totals are their sum. */
export class NormalisationByCollection {
  private readonly counts = new Map<CollectionKey, NormalisationCounts>();
  /**
   * Counts parsed from their JSON text (addText), by text: rows repeat few texts. Bounded, as the texts are not:
   * a run's rows may replace values of any combination of columns.
   */
  private readonly parsed = new Map<string, NormalisationCounts>();

  /** Adds `counts` (one row's, or a collection's from a base) to collection `key`'s. */
  add(key: CollectionKey, counts: NormalisationCounts): void {
    let into = this.counts.get(key);
    if (into === undefined) this.counts.set(key, (into = emptyNormalisationCounts()));
    addCounts(into, counts);
  }

  /** Adds one row's counts given as JSON text (as a staged page holds them: page-columns.ts) to collection `key`'s. */
  addText(key: CollectionKey, text: string): void {
    let counts = this.parsed.get(text);
    if (counts === undefined) {
      counts = JSON.parse(text) as NormalisationCounts;
      if (this.parsed.size < MAX_PARSED) this.parsed.set(text, counts);
    }
    this.add(key, counts);
  }

  /** The counts of collection `key`, if it has any. */
  get(key: CollectionKey): NormalisationCounts | undefined {
    return this.counts.get(key);
  }

  /** The collections that have counts. */
  keys(): IterableIterator<CollectionKey> {
    return this.counts.keys();
  }

  /** The sum over every collection, columns in `table`'s order. */
  totals(table: Table): NormalisationCounts {
    const sum = emptyNormalisationCounts();
    for (const counts of this.counts.values()) addCounts(sum, counts);
    return inTableOrder(sum, table);
  }

  /** The file's text (see the top of this file). */
  fileText(table: Table): string {
    const keys = [...this.counts.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : a - b));
    const collections = keys.map((key) => {
      const counts = inTableOrder(this.counts.get(key)!, table);
      return {
        collection_id: key,
        sentinel_to_null: counts.sentinelToNull,
        empty_to_null: counts.emptyToNull,
        records_with_extra: counts.recordsWithExtra,
      };
    });
    return JSON.stringify({ version: VERSION, collections }) + '\n';
  }

  /** Writes the file at `path`, atomically. */
  async write(path: string, table: Table): Promise<SinkResult> {
    return { format: 'index', path, rows: this.counts.size, ...(await writeTextAtomic(path, this.fileText(table))) };
  }

  /** Reads a file this class wrote; throws a one-line Error naming what does not read. */
  static async read(path: string): Promise<NormalisationByCollection> {
    const text = (await readRegularFile(path, { maxBytes: 256 << 20, followLink: true })).toString('utf8');
    const parsed = JSON.parse(text) as { version?: unknown; collections?: unknown };
    if (parsed.version !== VERSION || !Array.isArray(parsed.collections))
      throw new Error(`${path} is not a normalisation file of version ${VERSION}`);
    const read = new NormalisationByCollection();
    for (const entry of parsed.collections as FileEntry[]) {
      const key = entry.collection_id;
      if (key !== null && !Number.isSafeInteger(key)) throw new Error(`${path} names a collection ${String(key)}`);
      read.add(key, {
        sentinelToNull: entry.sentinel_to_null ?? {},
        emptyToNull: entry.empty_to_null ?? {},
        recordsWithExtra: entry.records_with_extra ?? 0,
      });
    }
    return read;
  }
}

/** One collection's line of the file, as read. */
interface FileEntry {
  collection_id: number | null;
  sentinel_to_null?: Record<string, number>;
  empty_to_null?: Record<string, number>;
  records_with_extra?: number;
}

/** `counts` with the columns of each count in `table`'s order (others after them, by name). */
function inTableOrder(counts: NormalisationCounts, table: Table): NormalisationCounts {
  const order = (record: Record<string, number>) => {
    const position = (name: string) => {
      const at = table.names.indexOf(name);
      return at === -1 ? table.names.length : at;
    };
    const names = Object.keys(record).sort((a, b) => position(a) - position(b) || (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(names.map((name) => [name, record[name]!]));
  };
  return {
    sentinelToNull: order(counts.sentinelToNull),
    emptyToNull: order(counts.emptyToNull),
    recordsWithExtra: counts.recordsWithExtra,
  };
}
