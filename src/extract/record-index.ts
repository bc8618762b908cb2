/**
 * Which records a run has, by id: the first valid occurrence of each id (its page and position), the ids that
 * only ever came as rejects, and how many occurrences were duplicates. Small per record, so memory stays flat.
 */
import type { JournalPage } from './checkpoint.js';
import { IdMap } from './id-map.js';

/** What adding one page changed. */
export interface PageAddition {
  /** Ids new to the run. */
  added: number;
  /** Occurrences of ids the run already had. */
  duplicates: number;
}

/** The run's records by id; built from journal pages in journal order. */
export class RecordIndex {
  /** Pages that hold records, by index. */
  readonly pages: JournalPage[] = [];
  /** Valid id → page index * 4096 + position. */
  private readonly valid = new IdMap();
  /** Ids seen only as rejects. */
  private readonly rejectedIds = new Set<number>();
  /** Rejects without a usable id. */
  private rejectsWithoutId = 0;

  /** Adds a journal page's records. */
  add(page: JournalPage): PageAddition {
    const pageIndex = this.pages.length;
    let added = 0;
    let duplicates = 0;
    page.ids.forEach((id, position) => {
      if (id === null) return;
      if (this.valid.has(id)) {
        duplicates++;
        return;
      }
      if (position >= 4096) throw new Error(`index: page ${page.url} has more than 4096 records`);
      if (!this.rejectedIds.delete(id)) added++; // a valid occurrence replaces an earlier reject
      this.valid.set(id, pageIndex * 4096 + position);
    });
    for (const id of page.rejected) {
      if (id === null) {
        this.rejectsWithoutId++;
        added++;
      } else if (this.valid.has(id) || this.rejectedIds.has(id)) duplicates++;
      else {
        this.rejectedIds.add(id);
        added++;
      }
    }
    if (page.file !== null) this.pages.push(page);
    return { added, duplicates };
  }

  /** How many records of a page would be new to the run (without adding them). */
  countNew(ids: readonly (number | null)[], rejected: readonly (number | null)[]): number {
    let fresh = 0;
    const seen = new Set<number>();
    for (const id of ids) if (id !== null && !this.valid.has(id) && !seen.has(id)) (seen.add(id), fresh++);
    for (const id of rejected) if (id === null || (!this.valid.has(id) && !this.rejectedIds.has(id) && !seen.has(id))) fresh++;
    return fresh;
  }

  /** Unique valid records. */
  get validCount(): number {
    return this.valid.size;
  }

  /** Unique records received: valid, plus rejects (by id; each id-less reject counts once). */
  get received(): number {
    return this.valid.size + this.rejectedIds.size + this.rejectsWithoutId;
  }

  /** Whether the id has a valid record. */
  hasValid(id: number): boolean {
    return this.valid.has(id);
  }

  /** Whether the valid record `id` at `position` of `page` is the occurrence the index keeps (the first). */
  isFirstOccurrence(id: number, page: JournalPage, position: number): boolean {
    const location = this.valid.get(id);
    return location !== undefined && location % 4096 === position && this.pages[Math.floor(location / 4096)] === page;
  }

  /** Whether a reject with this id is the one to report (it never came valid). */
  isReportedReject(id: number): boolean {
    return this.rejectedIds.has(id);
  }

  /** Valid records in ascending id order: [page index, position] pairs. */
  *inIdOrder(): IterableIterator<[page: number, position: number]> {
    for (const id of this.valid.keysAscending()) {
      const location = this.valid.get(id)!;
      yield [Math.floor(location / 4096), location % 4096];
    }
  }
}
