import type { ExtractEvent } from '../extract/extract-events.js';

/** Renders extraction events on stderr: a redrawn bar on a terminal, a plain line every few seconds otherwise. */
export class Progress {
  private records = 0;
  private pages = 0;
  private count = 0;
  private readonly started = Date.now();
  private lastPlain = 0;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly quiet = false,
    private readonly plainEveryMs = 5_000,
  ) {}

  /** Takes one event. */
  readonly onEvent = (event: ExtractEvent): void => {
    if (this.quiet) return;
    if (event.type === 'retry') {
      this.clearLine();
      this.out.write(`img-etl: retry ${event.attempt} of ${event.url} in ${(event.delayMs / 1000).toFixed(1)} s: ${event.reason}\n`);
      return;
    }
    if (event.type === 'skip') {
      this.clearLine();
      this.out.write(`img-etl: skipped the record at offset ${event.offset}: the server cannot serve it (${event.reason})\n`);
      return;
    }
    this.records += event.records;
    this.pages++;
    this.count = Math.max(this.count, event.count);
    const now = Date.now();
    if (this.out.isTTY) this.out.write(`\r${this.line(now)}\x1b[K`);
    else if (now - this.lastPlain >= this.plainEveryMs) {
      this.lastPlain = now;
      this.out.write(`${this.line(now)}\n`);
    }
  };

  /** Ends the bar so the summary starts on a clean line. */
  finish(): void {
    if (this.quiet) return;
    this.clearLine();
  }

  private clearLine(): void {
    if (this.out.isTTY) this.out.write('\r\x1b[K');
  }

  private line(now: number): string {
    const seconds = Math.max((now - this.started) / 1000, 0.001);
    const rate = this.records / seconds;
    const share = this.count > 0 ? Math.min(this.records / this.count, 1) : 0;
    const eta = rate > 0 && this.count > this.records ? `${Math.ceil((this.count - this.records) / rate)} s` : '-';
    const width = 24;
    const filled = Math.round(share * width);
    const bar = this.out.isTTY ? `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ` : '';
    return `${bar}${(share * 100).toFixed(1)}% ${this.records}/${this.count} records, ${this.pages} pages, ${Math.round(rate)} rec/s, eta ${eta}`;
  }
}
