/**
 * Which records a run has: for each valid id the copy it keeps, for each reject its first occurrence. Each record is
 * counted once however often it is served, so completeness counts distinct records; small per record.
 */
import type { RejectKey, StagedPage } from './journal.js';
import { IdMap } from './id-map.js';

/** Records a page may hold: a location is `page index * MAX_PAGE_RECORDS + position`, a safe integer for 2^27 pages. */
export const MAX_PAGE_RECORDS = 2 ** 26;

/** What adding one page changed. */
export interface PageAddition {
  /** Records new to the run. */
  added: number;
  /** Occurrences of records the run already had. */
  duplicates: number;
  /** Positions of the records new to the run. */
  addedAt: number[];
}

/** The run's records; built from journal pages in journal order. */
export class RecordIndex {
  /** Pages that hold records (a staged body), by index. */
  readonly pages: StagedPage[] = [];
  /** Valid id → location of the copy kept. */
  private readonly valid = new IdMap();
  /** Reject key → location of its first occurrence, for records that never came valid. */
  private readonly rejects = new Map<RejectKey, number>();
  /** Ids whose copies differed, in the order first seen. */
  private readonly conflictIds = new Set<number>();

  /** Adds a journal page's records; a position listed in `replaced` takes the place of the copy kept so far. */
  add(page: StagedPage): PageAddition {
    if (page.ids.length > MAX_PAGE_RECORDS)
      throw new RangeError(`index: page ${page.url} has more than ${MAX_PAGE_RECORDS} records`);
    const pageIndex = this.pages.length;
    const replaced = new Set(page.replaced ?? []);
    const addedAt: number[] = [];
    let duplicates = 0;
    let r = 0;
    page.ids.forEach((id, position) => {
      const location = pageIndex * MAX_PAGE_RECORDS + position;
      if (id === null) {
        const key = page.rejected[r++]!;
        if ((typeof key === 'number' && this.valid.has(key)) || this.rejects.has(key)) duplicates++;
        else {
          this.rejects.set(key, location);
          addedAt.push(position);
        }
        return;
      }
      if (this.valid.has(id)) {
        duplicates++;
        if (replaced.has(position)) this.valid.set(id, location);
        return;
      }
      if (!this.rejects.delete(id)) addedAt.push(position); // a valid copy replaces a reject of the same id
      this.valid.set(id, location);
    });
    for (const id of page.conflicts ?? []) this.conflictIds.add(id);
    if (page.file !== null) this.pages.push(page);
    else if (replaced.size > 0 || addedAt.length > 0)
      throw new Error(`index: page ${page.url} holds records the run keeps but no staged body`);
    return { added: addedAt.length, duplicates, addedAt };
  }

  /** How many records of a page would be new to the run (without adding them). */
  countNew(ids: readonly (number | null)[], rejected: readonly RejectKey[]): number {
    let fresh = 0;
    const seen = new Set<RejectKey>();
    for (const id of ids) {
      if (id === null || this.valid.has(id) || seen.has(id)) continue;
      seen.add(id);
      fresh++;
    }
    for (const key of rejected) {
      if ((typeof key === 'number' && this.valid.has(key)) || this.rejects.has(key) || seen.has(key)) continue;
      seen.add(key);
      fresh++;
    }
    return fresh;
  }

  /** Whether the run holds a record under this reject key (a valid id, or a reject's id or content hash). */
  has(key: RejectKey): boolean {
    return (typeof key === 'number' && this.valid.has(key)) || this.rejects.has(key);
  }

  /** Lets go of a record (valid or reject) the run should not keep; false when it held none under that key. */
  drop(key: RejectKey): boolean {
    const valid = typeof key === 'number' && this.valid.delete(key);
    return this.rejects.delete(key) || valid;
  }

  /** Distinct records received: valid, plus rejects that never came valid. */
  get received(): number {
    return this.valid.size + this.rejects.size;
  }

  /** Ids served in copies that differed (the newer copy is kept). */
  get conflicts(): readonly number[] {
    return [...this.conflictIds];
  }

  /** Where the copy the run keeps of a record is (`page index * MAX_PAGE_RECORDS + position`), if it keeps one. */
  location(key: RejectKey): number | undefined {
    return typeof key === 'number' && this.valid.has(key) ? this.valid.get(key) : this.rejects.get(key);
  }

  /** The page and position of the copy kept of a valid id. */
  locate(id: number): [page: StagedPage, position: number] | undefined {
    const location = this.valid.get(id);
    return location === undefined
      ? undefined
      : [this.pages[Math.floor(location / MAX_PAGE_RECORDS)]!, location % MAX_PAGE_RECORDS];
  }

  /** Valid records in ascending id order: [page index, position] pairs. */
  *inIdOrder(): IterableIterator<[page: number, position: number]> {
    for (const id of this.valid.keysAscending()) {
      const location = this.valid.get(id)!;
      yield [Math.floor(location / MAX_PAGE_RECORDS), location % MAX_PAGE_RECORDS];
    }
  }

  /**
   * Rejects in the order of their keys, whatever the order they were served in (usable ids ascending, then content
   * hashes): [key, page index, position], each distinct reject once.
   */
  rejectsInKeyOrder(): [key: RejectKey, page: number, position: number][] {
    return [...this.rejects]
      .sort(([a], [b]) => compareRejectKeys(a, b))
      .map(([key, l]) => [key, Math.floor(l / MAX_PAGE_RECORDS), l % MAX_PAGE_RECORDS]);
  }
}

/** The order of rejects in the rejects file: usable ids (numbers) ascending, then content hashes ascending. */
export function compareRejectKeys(a: RejectKey, b: RejectKey): number {
  if (typeof a === 'number') return typeof b === 'number' ? a - b : -1;
  return typeof b === 'number' ? 1 : a < b ? -1 : a > b ? 1 : 0;
}
