/**
 * A least-recently-used cache of parsed staged pages, bounded by the records it holds (pages are 1 to 1,000
 * records): replay reads each page about once, and the conflict check reads the page of a record seen again.
 */
import type { Checkpoint, JournalPage } from './checkpoint.js';

/** Parsed staged pages, most recently used last. */
export class PageCache {
  private readonly pages = new Map<string, unknown[]>();
  private records = 0;

  constructor(
    private readonly checkpoint: Checkpoint,
    /** Records held at most (whole pages, at least one page). */
    private readonly maxRecords = 5_000,
  ) {}

  /** The records of a staged page (one with a file). */
  async get(page: JournalPage): Promise<unknown[]> {
    const file = page.file!;
    let records = this.pages.get(file);
    if (records !== undefined) {
      this.pages.delete(file); // re-insert: Map order is recency
    } else {
      records = await this.checkpoint.readRecords(file);
      this.records += records.length;
      for (const [oldest, held] of this.pages) {
        if (this.records <= this.maxRecords) break;
        this.pages.delete(oldest);
        this.records -= held.length;
      }
    }
    this.pages.set(file, records);
    return records;
  }
}
