/**
 * The passes over the image list of one run: each paged into the staging folder, or finished where an earlier process
 * left it, and summed up.
 */
import type { Checkpoint } from '../staging/checkpoint.js';
import type { JournalEntry, JournalPage } from '../staging/journal.js';
import type { CollectionTally } from './collection-tally.js';
import { RepeatingPages } from '../paging/endless-list.js';
import type { PageCache } from '../staging/page-cache.js';
import { newExtractStats, paginate, resumeOf, type ExtractStats, type PaginateOptions } from '../paging/paginate.js';
import { PassSummaries, type PassSummary } from './pass-summaries.js';
import type { RecordIndex } from '../staging/record-index.js';
import { savePage } from '../staging/save-page.js';

/** What the passes of one run share. */
export interface PassRun {
  /** How to page the image list; its `onEvent` receives the pass events. */
  options: PaginateOptions;
  /** The staging folder. */
  checkpoint: Checkpoint;
  /** The run's records by id. */
  index: RecordIndex;
  /** The records of the first pass by collection. */
  tally: CollectionTally;
  /** Parsed staged pages. */
  cache: PageCache;
  /** The image list's totals, each pass's stats merged in. */
  stats: ExtractStats;
  /** Passes at most. */
  maxPasses: number;
}

/** A run's passes over the image list, resumed from the journal entries `earlier` processes left. */
export class ImagePasses {
  /** Each pass made over the image list, in order. */
  readonly made: PassSummary[] = [];
  /** `count` of the run's first image-list page, once one is staged. */
  countAtStart: number | undefined;
  /** Records the service counts: `count` of the last image-list page staged. */
  expected: number;
  /** Records the last pass this process paged skipped (each answered 500 alone): that pass never received them. */
  lastSkipped = 0;
  private readonly summaries = new PassSummaries();
  private readonly ended: Set<number>;
  private readonly earlierPages: JournalPage[];

  constructor(
    private readonly run: PassRun,
    earlier: readonly JournalEntry[],
  ) {
    this.ended = new Set(earlier.flatMap((e) => (e.type === 'pass-end' ? [e.pass] : [])));
    this.earlierPages = earlier.filter((e): e is JournalPage => e.type === 'page');
    this.countAtStart = this.earlierPages[0]?.count;
    this.expected = this.earlierPages.at(-1)?.count ?? 0;
  }

  /** Adds a page to the index and its pass's summary; returns whether it held a record new to the pass. */
  account(page: JournalPage): boolean {
    const { added, addedAt } = this.run.index.add(page);
    if (page.pass === 1) this.run.tally.add(page, addedAt);
    return this.summaries.add(page, added);
  }

  /** Makes (or finishes) one pass over the image list and adds its summary. */
  async pass(pass: number): Promise<PassSummary> {
    if (!this.ended.has(pass)) await this.pagePass(pass);
    else this.replaySkipped(pass);
    const summary = this.summaries.of(pass);
    // Inserts at the end of the list (new uploads) shift nothing; deletes shrink `count`, inserts before the cursor
    // repeat records.
    summary.clean = summary.duplicates === 0 && !(summary.countMin < summary.countFirst);
    this.made.push(summary);
    if (!this.ended.has(pass)) this.passEnded(summary);
    return summary;
  }

  /**
   * Makes the passes after `first` while the last one left records uncounted or was not clean, until one adds nothing
   * (from the third on) or maxPasses are made.
   */
  async passAgain(first: PassSummary): Promise<void> {
    const { index, maxPasses } = this.run;
    let last = first;
    for (let pass = 2; pass <= maxPasses; pass++) {
      if ((index.received >= this.expected && last.clean) || (pass > 2 && last.added === 0)) break;
      last = await this.pass(pass);
    }
  }

  /** Pages the image list into the staging folder as pass `pass`, from where an earlier process left it. */
  private async pagePass(pass: number): Promise<void> {
    const { options, checkpoint, index, cache, maxPasses } = this.run;
    const mine = this.earlierPages.filter((p) => p.pass === pass);
    const resume = resumeOf(mine);
    const recordsDone = mine.reduce((n, p) => n + p.ids.length, 0);
    options.onEvent?.({ type: 'pass-start', pass, maxPasses, ...this.counts(), pagesDone: mine.length, recordsDone });
    const passStats = newExtractStats();
    // The records an earlier process skipped in this pass were never served: they stay skipped.
    passStats.skippedOffsets.push(...skippedIn(mine));
    const repeating = new RepeatingPages();
    for await (const batch of paginate(options, passStats, resume)) {
      const from = batch.source.offset;
      const to = from + (batch.limit ?? passStats.pageSize);
      const skipped = (batch.skipped ?? 0) > 0 ? passStats.skippedOffsets.filter((o) => o >= from && o < to) : [];
      const place = { type: 'page', pass, ...(skipped.length > 0 ? { skipped: [...new Set(skipped)] } : {}) } as const;
      const page = (await savePage(checkpoint, index, cache, place, batch, passStats.pageSize)) as JournalPage;
      repeating.add(page.url, this.account(page));
      this.countAtStart ??= page.count;
      this.expected = page.count;
    }
    mergeStats(this.run.stats, passStats);
    this.lastSkipped = new Set(passStats.skippedOffsets).size;
    await checkpoint.endPass(pass);
  }

  /** Takes the records skipped in a pass an earlier process ended, as if this process had paged it. */
  private replaySkipped(pass: number): void {
    const skipped = skippedIn(this.earlierPages.filter((p) => p.pass === pass));
    this.lastSkipped = new Set(skipped).size;
    this.run.stats.skippedOffsets = eachOnce(this.run.stats.skippedOffsets, skipped);
  }

  private passEnded({ pass, added, duplicates, clean }: PassSummary): void {
    this.run.options.onEvent?.({ type: 'pass-end', pass, added, duplicates, ...this.counts(), clean });
  }

  /** Records the service counts, the run holds, and the difference (at least 0), as the pass events tell them. */
  private counts(): { expected: number; received: number; missing: number } {
    const { expected } = this;
    const { received } = this.run.index;
    return { expected, received, missing: Math.max(0, expected - received) };
  }
}

function mergeStats(total: ExtractStats, pass: ExtractStats): void {
  total.pagesFetched += pass.pagesFetched;
  total.requests += pass.requests;
  total.retries += pass.retries;
  total.pageSize ||= pass.pageSize;
  total.countMin = Math.min(total.countMin, pass.countMin);
  total.countMax = Math.max(total.countMax, pass.countMax);
  total.skippedOffsets = eachOnce(total.skippedOffsets, pass.skippedOffsets);
}

/** Skipped offsets of two sources, each once, ascending: a record the server cannot serve is skipped by every pass. */
function eachOnce(offsets: readonly number[], more: readonly number[]): number[] {
  return [...new Set([...offsets, ...more])].sort((a, b) => a - b);
}

/** The offsets of the records skipped in `pages` (each failed alone), as their journal lines record them. */
function skippedIn(pages: readonly JournalPage[]): number[] {
  return pages.flatMap((p) => p.skipped ?? []);
}
