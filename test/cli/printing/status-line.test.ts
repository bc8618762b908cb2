/** The one status line both progress views redraw in place: drawn on a terminal only, cut to width, cleared once. */
import { describe, expect, it } from 'vitest';
import { bar, StatusLine } from '../../../src/cli/printing/status-line.js';

function stream(tty: boolean, columns = 40): { out: NodeJS.WriteStream; chunks: string[] } {
  const chunks: string[] = [];
  const out = { isTTY: tty, columns, write: (s: string) => (chunks.push(s), true) };
  return { out: out as unknown as NodeJS.WriteStream, chunks };
}

describe('bar', () => {
  it('fills 24 characters in proportion, clamped to 0 and 1', () => {
    expect(bar(0)).toBe(`[${'.'.repeat(24)}]`);
    expect(bar(0.5)).toBe(`[${'#'.repeat(12)}${'.'.repeat(12)}]`);
    expect(bar(1)).toBe(`[${'#'.repeat(24)}]`);
    expect(bar(1.5)).toBe(bar(1));
    expect(bar(-1)).toBe(bar(0));
  });
});

describe('StatusLine', () => {
  it('draws over itself on a terminal, cut to one character less than its width', () => {
    const { out, chunks } = stream(true, 21);
    const line = new StatusLine(out);
    line.draw('x'.repeat(50), 5);
    expect(chunks).toEqual([`\r${'x'.repeat(20)}\x1b[K`]);
    expect(line.lastDraw).toBe(5);
  });

  it('clears what it drew before a line printed above it, and only then', () => {
    const { out, chunks } = stream(true);
    const line = new StatusLine(out);
    line.print('first');
    line.draw('status', 1);
    line.print('second', 'third');
    line.clear();
    expect(chunks).toEqual(['first\n', '\rstatus\x1b[K', '\r\x1b[K', 'second\nthird\n']);
  });

  it('draws nothing where the stream is not a terminal, and prints lines as they are', () => {
    const { out, chunks } = stream(false);
    const line = new StatusLine(out);
    line.draw('status', 1);
    line.clear();
    line.print('a line');
    expect(line.tty).toBe(false);
    expect(chunks).toEqual(['a line\n']);
  });
});
