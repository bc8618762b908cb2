/**
 * The text renderer on its own, fed events under a fake clock: what a terminal and a log file receive, how often
 * the bar is redrawn, and that quiet keeps errors only. (test/cli/printing/progress.e2e.test.ts runs the real CLI.)
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../../../src/run/run-events.js';
import { Progress } from '../../../src/cli/printing/progress.js';

/** A stand-in for process.stderr that keeps what is written. */
function fakeStream(tty: boolean, columns = 120) {
  const chunks: string[] = [];
  const stream = { isTTY: tty, columns, write: (s: string) => (chunks.push(s), true) } as unknown as NodeJS.WriteStream;
  return { stream, chunks, text: () => chunks.join('') };
}

const passStart = (pass = 1, extra: Partial<Extract<RunEvent, { type: 'pass-start' }>> = {}): RunEvent => ({
  type: 'pass-start',
  pass,
  maxPasses: 3,
  expected: 0,
  received: 0,
  missing: 0,
  pagesDone: 0,
  recordsDone: 0,
  ...extra,
});
const page = (offset: number, records = 100, count = 1000): RunEvent => ({
  type: 'page',
  url: `http://h/api/images/?limit=100&offset=${offset}`,
  offset,
  records,
  count,
});
/** The bar redraws written so far: each starts with a carriage return and ends by erasing the rest of the line. */
const redraws = (text: string) => [...text.matchAll(/\r([^\r\n\x1b]+)\x1b\[K/g)].map((m) => m[1]!);

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(0);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Progress on a terminal', () => {
  it('draws a bar with records, pages, rate and ETA from count, redrawn in place', () => {
    const { stream, text } = fakeStream(true);
    const progress = new Progress(stream);
    progress.onEvent(passStart());
    expect(redraws(text())).toEqual(['[........................] waiting for the first page']);
    vi.setSystemTime(500);
    progress.onEvent(page(0));
    vi.setSystemTime(1000);
    progress.onEvent(page(100));
    expect(redraws(text()).at(-1)).toBe(
      '[#####...................] 20.0% 200/1,000 records, 2/10 pages, 200 rec/s, eta 4 s',
    );
    expect(text()).not.toContain('\n');
    progress.finish();
  });

  it('redraws at most ten times a second however fast pages come, and keeps the clock moving between pages', () => {
    const { stream, text } = fakeStream(true);
    const progress = new Progress(stream);
    progress.onEvent(passStart());
    for (let i = 0; i < 500; i++) {
      progress.onEvent(page(i * 100, 100, 100_000)); // 500 pages in half a second
      vi.advanceTimersByTime(1);
    }
    expect(redraws(text())).toHaveLength(5); // at 0 (pass start), 100, 200, 300 and 400 ms
    // No page for three seconds: the bar is still redrawn each second, the rate falling.
    vi.advanceTimersByTime(3000);
    const later = redraws(text()).slice(5);
    expect(later).toHaveLength(3);
    expect(later.at(-1)).toBe(
      '[############............] 50.0% 50,000/100,000 records, 500/1,000 pages, 16,667 rec/s, eta 3 s',
    );
    progress.finish();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('says why a later pass runs and what it looks for', () => {
    const { stream, text } = fakeStream(true);
    const progress = new Progress(stream);
    progress.onEvent(passStart());
    progress.onEvent(page(0));
    progress.onEvent(passStart(2, { expected: 1000, received: 988, missing: 12 }));
    expect(text()).toContain(
      '\r\x1b[Kimg-etl: pass 2 of at most 3: 12 records are missing; paging the list again to find them\n',
    );
    vi.setSystemTime(200);
    progress.onEvent(page(0));
    expect(redraws(text()).at(-1)).toMatch(
      /^pass 2\/3 looking for 12 missing \[##\.{22}\] 10\.0% 100\/1,000 records, 1\/10 pages, 500 rec\/s, eta 2 s$/,
    );
    progress.onEvent(passStart(3, { expected: 1000, received: 1000, missing: 0 }));
    expect(text()).toContain(
      'img-etl: pass 3 of at most 3: the list shifted during pass 2 (a repeated record or ' +
        'a shrinking count); paging it again for records that moved\n',
    );
    expect(redraws(text()).at(-1)).toMatch(/^pass 3\/3 looking for moved records \[/);
    progress.finish();
  });

  it('counts the pages an earlier attempt kept when it resumes', () => {
    const { stream, text } = fakeStream(true);
    const progress = new Progress(stream);
    progress.onEvent(passStart(1, { expected: 1000, pagesDone: 4, recordsDone: 400 }));
    expect(text()).toContain(
      'img-etl: resuming pass 1: 4 pages (400 records) were fetched by an earlier attempt and are kept\n',
    );
    vi.setSystemTime(900);
    progress.onEvent(page(400));
    vi.setSystemTime(1000);
    progress.onEvent(page(500));
    // The rate counts only what this process fetched: 200 records in 1 s.
    expect(redraws(text()).at(-1)).toBe(
      '[##############..........] 60.0% 600/1,000 records, 6/10 pages, 200 rec/s, eta 2 s',
    );
    progress.finish();
  });

  it('shows the publish phase with rows written, and clears the bar for the summary', () => {
    const { stream, text } = fakeStream(true);
    const progress = new Progress(stream);
    progress.onEvent(passStart());
    progress.onEvent(page(0, 100, 100));
    vi.setSystemTime(1000);
    progress.onEvent({ type: 'publish-start', records: 4000, formats: ['parquet', 'csv'] });
    vi.setSystemTime(2000);
    progress.onEvent({ type: 'publish-progress', rows: 999, rejects: 1 });
    expect(redraws(text()).at(-1)).toBe(
      'writing parquet+csv [######..................] 25.0% 1,000/4,000 records, 1,000 rec/s, eta 3 s',
    );
    progress.onEvent({ type: 'publish-end', rows: 3999, rejects: 1, files: [] });
    expect(text().endsWith('\r\x1b[K')).toBe(true);
    vi.advanceTimersByTime(5000);
    expect(text().endsWith('\r\x1b[K')).toBe(true); // nothing drawn after publishing
    progress.finish();
  });

  it("with a pipeline's stages, counts the records written after them, without a share or a time left", () => {
    const { stream, text } = fakeStream(true);
    const progress = new Progress(stream, false, { stages: true });
    progress.onEvent(passStart());
    progress.onEvent(page(0, 100, 100));
    vi.setSystemTime(1000);
    progress.onEvent({ type: 'publish-start', records: 4000, formats: ['parquet'] });
    vi.setSystemTime(2000);
    progress.onEvent({ type: 'publish-progress', rows: 90, rejects: 0 });
    expect(redraws(text()).at(-1)).toBe("writing parquet: 90 records written after the pipeline's stages, 90 rec/s");
    progress.onEvent({ type: 'publish-end', rows: 110, rejects: 0, files: [] });
    expect(redraws(text()).at(-1)).toBe("writing parquet: 110 records written after the pipeline's stages, 110 rec/s");
    expect(text()).not.toContain('4,000');
    progress.finish();
  });

  it('prints retries and skips on lines of their own above the bar', () => {
    const { stream, text } = fakeStream(true);
    const progress = new Progress(stream);
    progress.onEvent(passStart());
    progress.onEvent(page(0));
    progress.onEvent({
      type: 'retry',
      url: 'http://h/api/images/?limit=100&offset=100',
      attempt: 1,
      delayMs: 1500,
      reason: 'returned 502',
    });
    progress.onEvent({
      type: 'skip',
      url: 'http://h/api/images/?limit=1&offset=150',
      offset: 150,
      reason: 'returned 500',
    });
    expect(text()).toContain(
      '\r\x1b[Kimg-etl: retry 1 of http://h/api/images/?limit=100&offset=100 in 1.5 s: returned 502\n',
    );
    expect(text()).toContain(
      '\r\x1b[Kimg-etl: skipped the record at offset 150: the server cannot serve it (returned 500)\n',
    );
    expect(text().endsWith('\x1b[K')).toBe(true); // the bar is back below them
    progress.finish();
  });

  it('never writes a line wider than the terminal, so a redraw stays on one line', () => {
    const { stream, text } = fakeStream(true, 40);
    const progress = new Progress(stream);
    progress.onEvent(passStart(2, { expected: 1_000_000, received: 999_000, missing: 1000 }));
    progress.onEvent(page(0, 100, 1_000_000));
    for (const line of redraws(text())) expect(line.length).toBeLessThanOrEqual(39);
    progress.finish();
  });
});

describe('Progress in a log file (not a terminal)', () => {
  it('writes a plain line at the first page, then one per interval, never a carriage return', () => {
    const { stream, chunks, text } = fakeStream(false);
    const progress = new Progress(stream, false, { plainEveryMs: 2000 });
    progress.onEvent(passStart());
    expect(text()).toBe('');
    vi.advanceTimersByTime(100);
    progress.onEvent(page(0));
    expect(text()).toBe('img-etl: pass 1: 10.0% 100/1,000 records, 1/10 pages, 1,000 rec/s, eta 1 s\n');
    for (let i = 1; i < 8; i++) {
      vi.advanceTimersByTime(100);
      progress.onEvent(page(i * 100));
    }
    expect(chunks).toHaveLength(1); // eight pages, one line
    vi.advanceTimersByTime(1200); // 2 s after the pass started
    expect(chunks).toHaveLength(2);
    expect(chunks[1]).toBe('img-etl: pass 1: 80.0% 800/1,000 records, 8/10 pages, 400 rec/s, eta 1 s\n');
    vi.advanceTimersByTime(4000);
    expect(chunks).toHaveLength(4); // a line per interval even while no page arrives
    progress.onEvent({ type: 'publish-start', records: 1000, formats: ['parquet', 'csv'] });
    expect(chunks.at(-1)).toBe('img-etl: writing 1,000 records as parquet, csv\n');
    progress.onEvent({ type: 'publish-progress', rows: 500, rejects: 0 });
    vi.advanceTimersByTime(2000);
    expect(chunks.at(-1)).toBe('img-etl: writing parquet, csv: 50.0% 500/1,000 records, 250 rec/s, eta 2 s\n');
    progress.finish();
    expect(vi.getTimerCount()).toBe(0);
    expect(text()).not.toMatch(/[\r\x1b]/);
  });
});

describe('Progress --quiet', () => {
  it('writes nothing for events, starts no timer, and still prints what ends the command', () => {
    for (const tty of [true, false]) {
      const { stream, text } = fakeStream(tty);
      const progress = new Progress(stream, true, { plainEveryMs: 10 });
      progress.onEvent(passStart());
      progress.onEvent(page(0));
      progress.onEvent({ type: 'retry', url: 'http://h/', attempt: 1, delayMs: 10, reason: 'returned 502' });
      progress.onEvent({ type: 'publish-start', records: 100, formats: ['csv'] });
      vi.advanceTimersByTime(1000);
      expect(text()).toBe('');
      expect(vi.getTimerCount()).toBe(0);
      progress.error('extract: GET http://h/ returned 404');
      expect(text()).toBe('img-etl: extract: GET http://h/ returned 404\n');
      progress.finish();
    }
  });
});
