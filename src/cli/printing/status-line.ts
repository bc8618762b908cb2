/**
 * The one line a run's progress redraws in place on a terminal: drawn over itself, cut to the terminal's width (a
 * wrapped line could not be redrawn in place), cleared before any line of its own is printed above it.
 */

/** A bar of `share` (0 to 1) in 24 characters: `[#########...............]`. */
export function bar(share: number): string {
  const filled = Math.round(Math.min(Math.max(share, 0), 1) * 24);
  return `[${'#'.repeat(filled)}${'.'.repeat(24 - filled)}]`;
}

/** The status line of a stream: drawn only when the stream is a terminal. */
export class StatusLine {
  /** Whether the stream is a terminal, where the line is drawn; elsewhere a run prints plain lines instead. */
  readonly tty: boolean;
  /** When the line was last drawn, in ms. */
  lastDraw = 0;
  private drawn = false;

  constructor(private readonly out: NodeJS.WriteStream) {
    this.tty = out.isTTY === true;
  }

  /** Draws `text` over the line (on a terminal only). */
  draw(text: string, now: number): void {
    if (!this.tty) return;
    this.lastDraw = now;
    this.drawn = true;
    const width = Math.max(20, (this.out.columns || 80) - 1);
    this.out.write(`\r${text.slice(0, width)}\x1b[K`);
  }

  /** Clears the line, so that what is printed next starts on a clean one. */
  clear(): void {
    if (this.tty && this.drawn) this.out.write('\r\x1b[K');
    this.drawn = false;
  }

  /** Prints lines of their own, above the status line. */
  print(...lines: string[]): void {
    this.clear();
    this.out.write(lines.map((line) => `${line}\n`).join(''));
  }
}
