/**
 * The files run on stderr: on a terminal a bar redrawn in place counting bytes (done of the listed total, rate, ETA,
 * files settled); otherwise a plain line every few seconds. Retries and files that end badly get a line of their own.
 */
import type { FilesEvent } from '../../files/files-events.js';
import { formatBytes, formatDuration, thousands } from './human-numbers.js';
import { bar, StatusLine } from './status-line.js';

/** Renders a files run's events. */
export class FilesProgress {
  private total = 0;
  private files = 0;
  private settled = 0;
  /** Bytes written to disk by this process (the rate's numerator). */
  private streamed = 0;
  /** Listed bytes of the files settled ok (an extra link, such as a thumbnail, has none listed). */
  private settledListed = 0;
  /** Of each file being fetched, by path, the listed bytes its `.part` holds; and their sum. */
  private readonly inFlight = new Map<string, number>();
  private inFlightBytes = 0;
  private started = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private readonly status: StatusLine;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly quiet = false,
    private readonly plainEveryMs = 10_000,
  ) {
    this.status = new StatusLine(out);
  }

  /** Takes one event. */
  readonly onEvent = (event: FilesEvent): void => {
    if (this.quiet) return;
    const now = Date.now();
    switch (event.type) {
      case 'plan':
        this.begin(event, now);
        return;
      case 'bytes':
        this.streamed += event.bytes;
        this.holding(event.path, Math.min(event.held, event.listedBytes));
        if (this.status.tty && now - this.status.lastDraw >= 100) this.draw(now);
        return;
      case 'file':
        this.fileSettled(event, now);
        return;
      case 'lock':
      case 'unmatched':
      case 'notice':
        this.line(`img-etl: ${event.message}`);
        return;
      case 'retry':
        this.line(
          `img-etl: retry ${event.attempt} of ${event.url} in ${(event.delayMs / 1000).toFixed(1)} s: ${event.reason}`,
        );
        return;
      case 'token-withheld':
        this.line(
          `img-etl: files: the token is not sent to ${event.baseUrl}, the service the snapshot names; ` +
            `give --base-url ${event.baseUrl} to send it there`,
        );
        return;
    }
  };

  /** The run's plan: the totals, and the redraws (a bar each second on a terminal, else a line now and then). */
  private begin(event: Extract<FilesEvent, { type: 'plan' }>, now: number): void {
    this.total = event.bytes;
    this.files = event.files;
    this.started = now;
    this.timer = setInterval(
      () => (this.status.tty ? this.draw(Date.now()) : this.plain(Date.now())),
      this.status.tty ? 1_000 : this.plainEveryMs,
    );
    this.timer.unref();
    if (!this.status.tty) this.plain(now);
  }

  /** What the `.part` at `path` holds of its listed bytes now (0 once the file is settled). */
  private holding(path: string, bytes: number): void {
    this.inFlightBytes += bytes - (this.inFlight.get(path) ?? 0);
    if (bytes > 0) this.inFlight.set(path, bytes);
    else this.inFlight.delete(path);
  }

  /** A file settled: counted (its listed bytes done only when it is ok), and a line of its own when it ended badly. */
  private fileSettled(event: Extract<FilesEvent, { type: 'file' }>, now: number): void {
    this.settled++;
    if (event.row.path !== null) this.holding(event.row.path, 0);
    if (event.row.status === 'ok') this.settledListed += event.listedBytes;
    if (event.row.status !== 'ok')
      this.line(`img-etl: ${event.row.status}: ${event.row.url ?? `image ${event.row.id}`}: ${event.row.reason ?? ''}`);
    else if (this.status.tty && now - this.status.lastDraw >= 100) this.draw(now);
  }

  /** Prints what ends the command, quiet or not. */
  error(message: string): void {
    this.status.print(`img-etl: ${message}`);
  }

  /** Stops redrawing and leaves a clean line for the summary. */
  finish(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.status.clear();
  }

  private line(text: string): void {
    this.status.print(text);
    this.draw(Date.now());
  }

  /**
   * Listed bytes done: those of the files settled ok, and what the `.part`s of the files being fetched hold of theirs
   * (not a thumbnail's, which the total never listed; not what a download restarted from byte 0 wrote before; none of
   * a file that failed).
   */
  private done(): number {
    return Math.min(this.total, this.settledListed + this.inFlightBytes);
  }

  private statusText(now: number): string {
    const done = this.done();
    const seconds = Math.max((now - this.started) / 1000, 0.001);
    const rate = this.streamed / seconds;
    const share = this.total > 0 ? done / this.total : this.settled / Math.max(this.files, 1);
    const eta = done >= this.total ? '0 s' : rate > 0 ? formatDuration((this.total - done) / rate) : '-';
    const files = `${thousands(this.settled)}/${thousands(this.files)} files`;
    const bytes = `${formatBytes(done)}/${formatBytes(this.total)}`;
    return `${(share * 100).toFixed(1)}% ${bytes}, ${files}, ${formatBytes(rate)}/s, eta ${eta}`;
  }

  private draw(now: number): void {
    if (this.files === 0) return;
    this.status.draw(`${bar(this.total > 0 ? this.done() / this.total : 0)} ${this.statusText(now)}`, now);
  }

  private plain(now: number): void {
    this.out.write(`img-etl: files: ${this.statusText(now)}\n`);
  }
}
