/** The text view of a run on stderr: a bar redrawn in place on a terminal, plain lines otherwise. */
import { noCollectionEndpoints } from '../../extract/completeness/completeness.js';
import type {
  CollectionReadEvent,
  CollectionsEndEvent,
  CollectionsStartEvent,
  ConflictsEvent,
  PageEvent,
  PassStartEvent,
  ReconcileEndEvent,
  ReconcileStartEvent,
  RetryEvent,
  SkipEvent,
  StagingEvent,
} from '../../extract/paging/extract-events.js';
import type {
  LeftoverEvent,
  PublishEndEvent,
  PublishStartEvent,
  RunEvent,
  RunKindEvent,
} from '../../run/run-events.js';
import type { Shortfall } from '../../extract/completeness/missing-of.js';
import { counted, formatDuration, thousands } from './human-numbers.js';
import { bar, StatusLine } from './status-line.js';
import type { Reporter } from './reporter.js';

/** How often progress is shown. */
export interface ProgressOptions {
  /** Milliseconds between plain lines when the stream is not a terminal; default 10,000. */
  plainEveryMs?: number;
  /** Least milliseconds between two redraws of the bar on a terminal; default 100 (at most 10 a second). */
  redrawEveryMs?: number;
  /**
   * Milliseconds between redraws while no event arrives (rate and ETA keep moving during a slow page); default 1,000.
   */
  refreshEveryMs?: number;
  /**
   * The run's rows pass through a pipeline's stages, which may leave some out: while writing, the rows written are
   * counted without a share of the records read or a time left; default false.
   */
  stages?: boolean;
}

/**
 * Renders a run's events as text on stderr: on a terminal a bar redrawn in place (records, pages, rate, ETA from
 * `count`; at most ten redraws a second, so a page costs a few additions); otherwise a plain line every few
 * seconds. Retries, skips, resumes and later passes get a line of their own. Quiet shows errors only.
 */
export class Progress implements Reporter {
  private readonly line: StatusLine;
  /** `collections`: the collections list and the collections' own lists are read (a line each step, no bar). */
  private phase: 'idle' | 'extract' | 'collections' | 'publish' = 'idle';
  /**
   * Where the pass stands, as far as the events tell: the records it looks for beyond what the run had (0 for the first
   * pass), its records and pages (an earlier process's included) and the records this process fetched (the rate's
   * numerator).
   */
  private pass = newPass(1, 1, 0, Date.now());
  private publish = { records: 0, formats: [] as string[], written: 0, started: 0 };
  /** The page size the server applied, from the `limit` of a page after the first. */
  private limit = 0;
  private firstLimit = 0;
  private plainLines = 0;
  private timer: NodeJS.Timeout | undefined;
  /**
   * The line for a collections list that answered 404, held until the image list answers: with a wrong --base-url
   * both answer 404, and the image list's error is then the one to tell, not that the service lacks collections.
   */
  private noCollections: string | undefined;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly quiet = false,
    private readonly options: ProgressOptions = {},
  ) {
    this.line = new StatusLine(out);
  }

  /** Takes one event. */
  readonly onEvent = (event: RunEvent): void => {
    if (this.quiet) return;
    const now = Date.now();
    switch (event.type) {
      case 'page':
        return this.onPage(event, now);
      case 'pass-start':
        return this.onPassStart(event, now);
      case 'pass-end':
        return this.tellNoCollections();
      case 'collections-start':
        return this.onCollectionsStart(event);
      case 'collections-end':
        return this.onCollectionsEnd(event);
      case 'reconcile-start':
        this.enterCollections();
        if (event.collections > 0) this.message(`img-etl: ${reconcileStartLine(event)}`);
        return;
      case 'collection-read':
        if (event.status !== 200) this.message(`img-etl: ${collectionReadLine(event)}`);
        return;
      case 'reconcile-end':
        if (event.collections > 0 || event.missing > 0) this.message(`img-etl: ${noticeLine(event)}`);
        return;
      case 'retry':
      case 'skip':
      case 'run-kind':
      case 'staging':
      case 'leftover':
      case 'conflicts':
        this.message(`img-etl: ${noticeLine(event)}`);
        return;
      case 'publish-start':
        return this.onPublishStart(event, now);
      case 'publish-progress':
        this.publish.written = event.rows + event.rejects;
        this.maybeDraw(now);
        return;
      case 'publish-end':
        return this.onPublishEnd(event, now);
    }
  };

  /** A page of the pass: counted, and the bar (or the first plain line) shows it. */
  private onPage(event: PageEvent, now: number): void {
    if (this.phase === 'collections') return;
    this.tellNoCollections();
    const p = this.pass;
    if (this.phase === 'idle') this.phase = 'extract';
    p.records += event.records;
    p.fetched += event.records;
    p.pages++;
    p.count = Math.max(p.count, event.count);
    if (this.limit === 0) this.learnLimit(event.url, event.offset);
    if (!this.line.tty && this.plainLines === 0) this.plainLine(now); // the first line shows `count` at once
    this.startTimer();
    this.maybeDraw(now);
  }

  /** A pass starts: counted from what an earlier attempt kept; a later pass or a resumed one says so. */
  private onPassStart(event: PassStartEvent, now: number): void {
    this.phase = 'extract';
    this.pass = newPass(event.pass, event.maxPasses, event.missing, now);
    this.pass.records = event.recordsDone;
    this.pass.pages = event.pagesDone;
    this.pass.count = event.expected;
    this.startTimer();
    this.message(
      ...(event.pass > 1 ? [`img-etl: ${passIntro(event.pass, event.maxPasses, event.missing)}`] : []),
      ...(event.pagesDone > 0
        ? [
            `img-etl: resuming pass ${event.pass}: ${thousands(event.pagesDone)} pages ` +
              `(${thousands(event.recordsDone)} records) were fetched by an earlier attempt and are kept`,
          ]
        : []),
    );
  }

  /** The collections list is read: a line when it resumes or is read again (after the pass, for what changed). */
  private onCollectionsStart(event: CollectionsStartEvent): void {
    // The read before the pass is a page or two: a line only when it resumes, or for the second read.
    this.enterCollections();
    if (event.round === 1 && event.pagesDone === 0) return;
    this.message(
      `img-etl: reading the collections list ${event.url}${event.round >= 2 ? ' again' : ''}` +
        (event.pagesDone > 0 ? ` (${thousands(event.pagesDone)} pages kept from an earlier attempt)` : ''),
    );
  }

  /** The collections list is read: a line after the second read, or when the service has no collection endpoints. */
  private onCollectionsEnd(event: CollectionsEndEvent): void {
    this.enterCollections();
    if (event.status === 200 && event.round === 1) return;
    if (event.status === 200)
      this.message(
        `img-etl: ${thousands(event.received)} of ${thousands(event.expected)} collections listed in ` +
          counted(event.passes, 'pass', 'passes'),
      );
    else this.noCollections = `img-etl: ${noCollectionEndpoints(event.url, event.status)}`;
  }

  /** The line held for a collections list that answered 404, once the image list has answered. */
  private tellNoCollections(): void {
    if (this.noCollections !== undefined) this.message(this.noCollections);
    this.noCollections = undefined;
  }

  /** Publishing starts: the bar shows the records written (a plain line says what is written). */
  private onPublishStart(event: PublishStartEvent, now: number): void {
    this.tellNoCollections();
    this.phase = 'publish';
    this.publish = { records: event.records, formats: event.formats, written: 0, started: now };
    const formats = event.formats.join(', ');
    if (!this.line.tty && this.options.stages)
      this.out.write(
        `img-etl: writing ${formats}: ${thousands(event.records)} records through the pipeline's stages\n`,
      );
    else if (!this.line.tty) this.out.write(`img-etl: writing ${thousands(event.records)} records as ${formats}\n`);
    this.startTimer();
    this.draw(now);
  }

  /** Publishing ends: the bar is drawn full, then cleared for the summary. */
  private onPublishEnd(event: PublishEndEvent, now: number): void {
    // The last bar drawn says the files are written, true when it is drawn; then it makes way for the summary.
    this.publish.written = this.options.stages ? event.rows + event.rejects : this.publish.records;
    this.draw(now);
    this.phase = 'idle'; // the summary follows
    this.line.clear();
  }

  /** Prints what ends the command, quiet or not. */
  error(message: string): void {
    this.line.print(`img-etl: ${message}`);
  }

  /** Stops the timer and clears the bar so the summary starts on a clean line. */
  finish(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.line.clear();
  }

  /** The collections phases give lines, not a bar: the bar of the pass is cleared. */
  private enterCollections(): void {
    this.line.clear();
    this.phase = 'collections';
  }

  /** Lines of their own, above the bar on a terminal; then the bar again. */
  private message(...lines: string[]): void {
    if (lines.length > 0) this.line.print(...lines);
    this.draw(Date.now());
  }

  private startTimer(): void {
    if (this.timer !== undefined) return;
    const everyMs = this.line.tty ? (this.options.refreshEveryMs ?? 1_000) : (this.options.plainEveryMs ?? 10_000);
    this.timer = setInterval(() => this.tick(), everyMs);
    this.timer.unref(); // never keeps the process alive
  }

  private tick(): void {
    const now = Date.now();
    if (this.line.tty) this.draw(now);
    else if (this.phase !== 'idle' && this.phase !== 'collections') this.plainLine(now);
  }

  /** Redraws the bar unless it was drawn moments ago. */
  private maybeDraw(now: number): void {
    if (this.line.tty && now - this.line.lastDraw >= (this.options.redrawEveryMs ?? 100)) this.draw(now);
  }

  private draw(now: number): void {
    if (!this.line.tty || this.phase === 'idle' || this.phase === 'collections') return;
    this.line.draw(this.barLine(now), now);
  }

  private plainLine(now: number): void {
    this.plainLines++;
    this.out.write(`img-etl: ${this.status(now)}\n`);
  }

  private learnLimit(url: string, offset: number): void {
    const limit = Number(/[?&]limit=(\d+)/.exec(url)?.[1] ?? NaN);
    if (!(limit > 0)) return;
    if (offset > 0)
      this.limit = limit; // pages after the first ask for what the server applied
    else this.firstLimit ||= limit;
  }

  /** The bar and the status, for a terminal. */
  private barLine(now: number): string {
    const share =
      this.phase === 'publish'
        ? ratio(this.publish.written, this.publish.records)
        : ratio(this.pass.records, this.pass.count);
    const formats = this.publish.formats.join('+');
    if (this.phase === 'publish' && this.options.stages) return `writing ${formats}: ${this.publishStatus(now)}`;
    if (this.phase === 'publish') return `writing ${formats} ${bar(share)} ${this.publishStatus(now)}`;
    const p = this.pass;
    const head =
      p.pass > 1
        ? `pass ${p.pass}/${p.maxPasses} looking for ` +
          `${p.missing > 0 ? `${thousands(p.missing)} missing` : 'moved records'} `
        : '';
    return `${head}${bar(share)} ${this.extractStatus(now)}`;
  }

  /** The status for a plain line. */
  private status(now: number): string {
    if (this.phase === 'publish') return `writing ${this.publish.formats.join(', ')}: ${this.publishStatus(now)}`;
    return `pass ${this.pass.pass}: ${this.extractStatus(now)}`;
  }

  private extractStatus(now: number): string {
    const p = this.pass;
    if (p.count === 0 && p.pages === 0) return 'waiting for the first page';
    const limit = this.limit || this.firstLimit;
    const pages =
      limit > 0
        ? `${thousands(p.pages)}/${thousands(Math.max(p.pages, Math.ceil(p.count / limit)))} pages`
        : `${thousands(p.pages)} pages`;
    const rate = p.fetched / Math.max((now - p.started) / 1000, 0.001);
    return (
      `${percent(p.records, p.count)} ${thousands(p.records)}/${thousands(p.count)} ` +
      `records, ${pages}, ${thousands(Math.round(rate))} rec/s, eta ` +
      `${eta(p.count - p.records, rate)}`
    );
  }

  private publishStatus(now: number): string {
    const q = this.publish;
    const rate = q.written / Math.max((now - q.started) / 1000, 0.001);
    const perSecond = `${thousands(Math.round(rate))} rec/s`;
    if (this.options.stages) return `${thousands(q.written)} records written after the pipeline's stages, ${perSecond}`;
    return (
      `${percent(q.written, q.records)} ${thousands(q.written)}/${thousands(q.records)} ` +
      `records, ${perSecond}, eta ` +
      `${eta(q.records - q.written, rate)}`
    );
  }
}

function newPass(pass: number, maxPasses: number, missing: number, started: number) {
  return { pass, maxPasses, missing, started, records: 0, pages: 0, fetched: 0, count: 0 };
}

/** Why a later pass runs, one line. */
function passIntro(pass: number, maxPasses: number, missing: number): string {
  const which = `pass ${pass} of at most ${maxPasses}`;
  if (missing > 0)
    return `${which}: ${counted(missing, 'record is', 'records are')} missing; paging the list again to find them`;
  return (
    `${which}: the list shifted during pass ${pass - 1} (a repeated record or a ` +
    `shrinking count); paging it again for records that moved`
  );
}

/** What a `--snapshot` run builds on, or why it makes a full pass, one line. */
function runKindLine(event: RunKindEvent): string {
  if (event.kind === 'incremental')
    return `building on ${event.base}: reading the collections that changed since, carrying the others over`;
  return `a full pass: ${event.why}`;
}

/** The collections that came up short and why, one line as reconciliation starts. */
function reconcileStartLine(event: ReconcileStartEvent): string {
  if (event.doubt === event.collections)
    return (
      `the image list's count does not meet the rows: ${counted(event.collections, 'collection')} whose earlier ` +
      `rows are not their count; reading their own lists in id order`
    );
  if (event.new > 0 || event.changed === event.collections)
    return (
      `${counted(event.collections, 'collection')} new (${thousands(event.new)}) or changed ` +
      `(${thousands(event.changed)}); reading their own lists in id order`
    );
  return (
    `${thousands(event.collections)} collections came up short, ` +
    `changed during the pass (${thousands(event.changed)}) ` +
    `or are no longer listed (${thousands(event.unlisted)}); reading their own lists in id order`
  );
}

/** A collection whose own list could not be read, one line. */
function collectionReadLine(event: CollectionReadEvent): string {
  return (
    `collection ${event.collection} answered ${event.status} ` +
    `(${event.status === 403 ? 'private now' : 'deleted'}): its records are left out`
  );
}

/**
 * Events that are a line of their own: retries, skips, the run's kind, reconciliation's end, staging, an earlier run's
 * pruning or publication left unfinished, conflicts.
 */
function noticeLine(
  event: RetryEvent | SkipEvent | RunKindEvent | ReconcileEndEvent | StagingEvent | LeftoverEvent | ConflictsEvent,
): string {
  switch (event.type) {
    case 'run-kind':
      return runKindLine(event);
    case 'retry':
      return `retry ${event.attempt} of ${event.url} in ${(event.delayMs / 1000).toFixed(1)} s: ${event.reason}`;
    case 'skip':
      return `skipped the record at offset ${event.offset}: the server cannot serve it (${event.reason})`;
    case 'reconcile-end':
      return (
        `reconciled ${thousands(event.collections)} collections: ` +
        `${thousands(event.added)} records added, ${missingLine(event.missing, event)}` +
        (event.dropped > 0 ? `, ${thousands(event.dropped)} left out` : '') +
        (event.removed > 0 ? `, ${thousands(event.removed)} deleted while the run paged left out` : '')
      );
    case 'staging':
    case 'leftover':
      return event.message;
    case 'conflicts':
      return conflictLine(event.count, event.firstIds);
  }
}

/** The records that came back changed, one line. */
export function conflictLine(count: number, firstIds: readonly number[]): string {
  const ids = `${firstIds.join(', ')}${count > firstIds.length ? ', …' : ''}`;
  return (
    `${counted(count, 'record')} came back changed while ` +
    `the list was paged (id ${ids}); the copy newer by modify_date is kept`
  );
}

/**
 * Records missing after reconciliation and, when any are, which count says so: the progress line and the summary's
 * proof say it alike, each writing numbers its own way (`num`, default thousands).
 */
export function missingLine(missing: number, shortfall: Shortfall, num: (n: number) => string = thousands): string {
  const { unserved, expected, received } = shortfall;
  if (missing === 0) return `${num(0)} missing`;
  const why =
    expected - received >= unserved
      ? `the image list counts ${num(expected)} at the end, ` +
        `but the pass and the collections read account for ${num(received)}`
      : `the collections read count ${num(unserved)} more than their own lists served`;
  return `${num(missing)} missing (${why})`;
}

function ratio(part: number, whole: number): number {
  return whole > 0 ? Math.min(part / whole, 1) : 0;
}

function percent(part: number, whole: number): string {
  return `${(ratio(part, whole) * 100).toFixed(1)}%`;
}

/** Time left at the current rate; `-` while the rate is unknown. */
function eta(left: number, perSecond: number): string {
  if (left <= 0) return '0 s';
  return perSecond > 0 ? formatDuration(left / perSecond) : '-';
}
