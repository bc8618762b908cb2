/**
 * The records the pass over the image list received, counted by collection: what reconciliation compares with each
 * collection's `number_of_images`. Built from the journal (each page's collection runs), never by reading staging.
 */
import type { JournalPage, RejectKey, StagedPage } from '../staging/journal.js';
import { expandRuns } from '../staging/collection-runs.js';
import { MAX_PAGE_RECORDS, type RecordIndex } from '../staging/record-index.js';

/** Distinct records received per collection, and the NIDM results packages their records name. */
export class CollectionTally {
  private readonly received = new Map<number, number>();
  private readonly packages = new Map<number, Set<string>>();
  /** Records new to the run whose collection is not known (no usable `collection_id`). */
  unattributed = 0;

  /** Counts the records of an image-list page that were new to the run (`addedAt`, from RecordIndex.add). */
  add(page: JournalPage, addedAt: readonly number[]): void {
    const collections = expandRuns(page.collections);
    for (const position of addedAt) {
      const cid = collections[position] ?? null;
      if (cid === null) this.unattributed++;
      else this.received.set(cid, (this.received.get(cid) ?? 0) + 1);
    }
    for (const [cid, url] of page.packages ?? []) {
      let known = this.packages.get(cid);
      if (known === undefined) this.packages.set(cid, (known = new Set()));
      known.add(url);
    }
  }

  /** Distinct records received in a collection. */
  receivedIn(cid: number): number {
    return this.received.get(cid) ?? 0;
  }

  /** NIDM results packages of a collection that its received records name (`number_of_images` counts them too). */
  packagesIn(cid: number): number {
    return this.packages.get(cid)?.size ?? 0;
  }

  /** Collections with a record received, ascending. */
  collections(): number[] {
    return [...this.received.keys()].sort((a, b) => a - b);
  }
}

/** The records (valid ids and reject keys) the staged pages hold from the given collections. */
export function recordsOfCollections(pages: readonly StagedPage[], collections: ReadonlySet<number>): Set<RejectKey> {
  const keys = new Set<RejectKey>();
  eachRecordOf(pages, collections, (key) => keys.add(key));
  return keys;
}

/**
 * The records the run keeps in each of the given collections, by collection: those whose kept copy (the one the
 * index points to) was served in it.
 */
export function keptOfCollections(index: RecordIndex, collections: ReadonlySet<number>): Map<number, RejectKey[]> {
  const kept = new Map<number, RejectKey[]>();
  eachRecordOf(index.pages, collections, (key, cid, location) => {
    if (index.location(key) !== location) return;
    let keys = kept.get(cid);
    if (keys === undefined) kept.set(cid, (keys = []));
    keys.push(key);
  });
  return kept;
}

/** Visits each record the pages hold from the given collections: its key, collection and location in the index. */
function eachRecordOf(
  pages: readonly StagedPage[],
  collections: ReadonlySet<number>,
  visit: (key: RejectKey, cid: number, location: number) => void,
): void {
  pages.forEach((page, pageIndex) => {
    const where = page.type === 'page' ? expandRuns(page.collections) : page.ids.map(() => page.collection);
    let r = 0;
    page.ids.forEach((id, position) => {
      const key = id ?? page.rejected[r++]!;
      const cid = where[position];
      if (cid !== null && cid !== undefined && collections.has(cid))
        visit(key, cid, pageIndex * MAX_PAGE_RECORDS + position);
    });
  });
}
