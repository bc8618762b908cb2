/**
 * Publishing while extracting. The list mostly comes in id order, with rows that moved in the table's heap a little
 * out of place (the bundled service moves 2% of rows up to 150 places), so the rows that a replay of the staging
 * folder gives (ascending by id, the first occurrence of each id) can be produced as the pages arrive: records wait
 * in a window ordered by id, and the smallest leaves whenever the window is full. A record whose id is below one
 * already sent out cannot be placed any more: the feed is then abandoned, and the run replays the staging folder
 * instead. Batches are cut as replay cuts them (fixed size, same offsets), so the files are byte for byte the same
 * whichever way they were written.
 */
import type { JournalPage } from '../extract/checkpoint.js';
import type { RecordIndex } from '../extract/record-index.js';
import type { ValidBatch } from '../transform/validate.js';
import { IdHeap } from './id-heap.js';
import { PushStream } from './push-stream.js';

/** The reason a feed stopped early; its stream's consumer sees this error. */
export class FeedAbandoned extends Error {
  constructor(reason: string) {
    super(`publishing while extracting stopped: ${reason}`);
    this.name = 'FeedAbandoned';
  }
}

/** How far records may arrive out of id order and how rows are batched. */
export interface InOrderFeedOptions {
  /** Records held back to put late ones in place; default 1,000 (the bundled service moves rows up to 150 places; the more held, the more work is left for after the last page). */
  window?: number;
  /** Rows per batch, as replay cuts them; default 1,000. */
  batchSize?: number;
}

/** Turns pages as they are staged into the stream of valid records replay would give; see the module comment. */
export class InOrderFeed {
  /** The valid records in ascending id order, then the rejects given to `finish`. */
  readonly stream = new PushStream<ValidBatch>(2);
  private readonly heap = new IdHeap<Record<string, unknown>>();
  private readonly window: number;
  private readonly batchSize: number;
  private pending: Record<string, unknown>[] = [];
  private sent = 0;
  private lastId = -Infinity;
  private abandoned: string | undefined;

  constructor(options: InOrderFeedOptions = {}) {
    this.window = Math.max(0, options.window ?? 1_000);
    this.batchSize = Math.max(1, options.batchSize ?? 1_000);
  }

  /** Whether the feed still follows the list (not abandoned, and its consumer still reading). */
  get active(): boolean {
    return this.abandoned === undefined && !this.stream.consumerStopped;
  }

  /** Valid records taken so far. */
  get records(): number {
    return this.sent + this.pending.length + this.heap.size;
  }

  /** Takes the records a staged page added to `index` (first occurrences only); waits while the consumer is behind. */
  async offer(page: JournalPage, records: readonly unknown[], index: RecordIndex): Promise<void> {
    if (!this.active || page.file === null) return;
    for (let position = 0; position < page.ids.length; position++) {
      const id = page.ids[position];
      if (id === null || id === undefined || !index.isFirstOccurrence(id, page, position)) continue;
      if (id <= this.lastId) return this.abandon(`record ${id} came after record ${this.lastId} had been published, further out of id order than the ${this.window}-record window`);
      this.heap.push(id, records[position] as Record<string, unknown>);
      if (this.heap.size > this.window && !(await this.sendSmallest())) return;
    }
  }

  /** Sends out every record held, then `rejects`, and ends the stream; resolves to false if the feed is not active. */
  async finish(rejects: AsyncIterable<ValidBatch>): Promise<boolean> {
    while (this.active && this.heap.size > 0) await this.sendSmallest();
    if (this.active && this.pending.length > 0) await this.flush();
    for await (const batch of rejects) if (!this.active || !(await this.stream.push(batch))) return false;
    if (!this.active) return false;
    this.stream.end();
    return true;
  }

  /** Stops the feed: its consumer's next read throws FeedAbandoned. */
  abandon(reason: string): void {
    if (this.abandoned !== undefined) return;
    this.abandoned = reason;
    this.pending = [];
    while (this.heap.size > 0) this.heap.pop();
    this.stream.fail(new FeedAbandoned(reason));
  }

  private async sendSmallest(): Promise<boolean> {
    this.lastId = this.heap.minId!;
    this.pending.push(this.heap.pop()!);
    return this.pending.length < this.batchSize || (await this.flush());
  }

  private async flush(): Promise<boolean> {
    const batch: ValidBatch = { source: { url: 'staging', offset: this.sent }, count: this.pending.length, records: this.pending, rejects: [] };
    this.sent += this.pending.length;
    this.pending = [];
    return this.stream.push(batch);
  }
}
