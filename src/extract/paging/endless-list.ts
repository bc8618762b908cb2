/**
 * A list that keeps serving records already received: a `count` far above what the list holds, with `next` links
 * forever. After MAX_REPEATING_PAGES such pages in a row the run stops, naming the first of them.
 */
import { ExtractError } from './extract-error.js';

/** Pages in a row that may hold only records the pass already has before the list is taken to be endless. */
export const MAX_REPEATING_PAGES = 20;

/** Tracks pages of one pass; `add` throws the endless-list error once MAX_REPEATING_PAGES in a row added nothing. */
export class RepeatingPages {
  private urls: string[] = [];

  /** Records the page at `url`, which held a record new to the pass or not. */
  add(url: string, heldSomethingNew: boolean): void {
    this.urls = heldSomethingNew ? [] : [...this.urls, url];
    if (this.urls.length < MAX_REPEATING_PAGES) return;
    const reason =
      `and the ${this.urls.length - 1} pages after it held only records already received in this pass: ` +
      'the list repeats itself endlessly';
    throw new ExtractError({ code: 'IMPLAUSIBLE_COUNT', url: this.urls[0]!, reason });
  }
}
