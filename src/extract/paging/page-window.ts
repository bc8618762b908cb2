/**
 * The pages of a list in flight: started in offset order up to the adaptive limit, taken back in that order, each as
 * soon as it and every page before it have settled.
 */
import type { PageBatch } from '../../schema/row.js';
import type { AdaptiveLimit } from './adaptive-limit.js';

type Settled = { ok: true; batch: PageBatch } | { ok: false; error: unknown };

/** A window of pages in flight, yielded in offset order. */
export class PageWindow {
  private readonly pages = new Map<number, Promise<Settled>>();
  private order: number[] = [];
  private running = 0;
  private wake: () => void = () => undefined;

  constructor(private readonly adaptive: AdaptiveLimit) {}

  /** Whether another page may start: fewer in flight than the limit allows, and at most twice the maximum held. */
  hasRoom(): boolean {
    return this.running < this.adaptive.current && this.pages.size < this.adaptive.max * 2;
  }

  /** Starts fetching the page at `offset`. */
  start(offset: number, fetch: (offset: number) => Promise<PageBatch>): void {
    this.running++;
    this.order.push(offset);
    const settled = fetch(offset).then(
      (batch): Settled => ({ ok: true, batch }),
      (error): Settled => ({ ok: false, error }),
    );
    this.pages.set(
      offset,
      settled.finally(() => {
        this.running--;
        this.wake();
      }),
    );
  }

  /** The offset of the first page held, or undefined when none is. */
  get head(): number | undefined {
    return this.order[0];
  }

  /** The offset of the last page started and still held, or undefined when none is. */
  get last(): number | undefined {
    return this.order.at(-1);
  }

  /** Whether a page is still in flight (one forgotten by `drop` included): it holds room in the window. */
  get busy(): boolean {
    return this.running > 0;
  }

  /** Resolves once the next page in flight settles. */
  settled(): Promise<void> {
    return new Promise<void>((resolve) => (this.wake = () => resolve()));
  }

  /** Forgets every page held (those still in flight count as running until they settle). */
  drop(): void {
    for (const offset of this.order) this.pages.delete(offset);
    this.order = [];
  }

  /**
   * Waits for the head page (there must be one) or for another page to settle first: resolves to the head's batch,
   * taken out of the window, or to undefined when another page settled first (room to start one more). Throws the
   * head's error.
   */
  async takeHead(): Promise<PageBatch | undefined> {
    const offset = this.order[0]!;
    const head = this.pages.get(offset)!;
    const woken = new Promise<undefined>((resolve) => (this.wake = () => resolve(undefined)));
    const settled = await Promise.race([head, woken]);
    if (settled === undefined) return undefined; // another page finished: refill the window
    this.pages.delete(offset);
    this.order.shift();
    if (!settled.ok) throw settled.error;
    return settled.batch;
  }
}
