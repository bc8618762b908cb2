/**
 * Each pass's summary, built page by page. Duplicates are counted within a pass: a later pass sees every record again
 * by design.
 */
import type { JournalPage, RejectKey } from '../staging/journal.js';
import { IdMap } from '../staging/id-map.js';

/** One pass over the list. */
export interface PassSummary {
  /** The pass, from 1. */
  pass: number;
  /** Records new to the run. */
  added: number;
  /** Occurrences of records the run already had. */
  duplicates: number;
  /** Smallest and largest `count` the pass saw. */
  countMin: number;
  countMax: number;
  /** `count` of the pass's first page. */
  countFirst: number;
  /** No duplicate, and `count` never below the pass's first: no sign that offsets shifted under the pass. */
  clean: boolean;
}

/** The summaries of a run's passes over the image list, by pass. */
export class PassSummaries {
  private readonly summaries = new Map<number, PassSummary>();
  // id → the last pass that saw it: a byte each (a pass past 254 goes to the fallback Map)
  private readonly lastPassOf = new IdMap(Uint8Array);
  private readonly lastPassOfContent = new Map<string, number>(); // the same for rejects told apart by their content

  /** The summary of `pass`, empty until a page of it is added. */
  of(pass: number): PassSummary {
    let s = this.summaries.get(pass);
    if (s === undefined)
      this.summaries.set(
        pass,
        (s = { pass, added: 0, duplicates: 0, countMin: Infinity, countMax: 0, countFirst: NaN, clean: true }),
      );
    return s;
  }

  /**
   * Adds `page`, which brought `added` records new to the run, to its pass's summary; returns whether it held a record
   * new to the pass.
   */
  add(page: JournalPage, added: number): boolean {
    const s = this.of(page.pass);
    let newToPass = page.ids.length === 0;
    const keys: RejectKey[] = [...page.ids.filter((id) => id !== null), ...page.rejected];
    for (const key of keys) {
      const last = typeof key === 'number' ? this.lastPassOf.get(key) : this.lastPassOfContent.get(key);
      if (last === page.pass) s.duplicates++;
      else {
        newToPass = true;
        if (typeof key === 'number') this.lastPassOf.set(key, page.pass);
        else this.lastPassOfContent.set(key, page.pass);
      }
    }
    s.added += added;
    if (Number.isNaN(s.countFirst)) s.countFirst = page.count;
    s.countMin = Math.min(s.countMin, page.count);
    s.countMax = Math.max(s.countMax, page.count);
    return newToPass;
  }
}
