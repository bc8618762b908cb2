/** The files run's text progress on its own, fed events under a fake clock: what its bar and lines count. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FilesEvent } from '../../src/files/files-events.js';
import type { FileRow } from '../../src/files/file-status.js';
import { FilesProgress } from '../../src/cli/files-progress.js';

function fakeStream(tty: boolean) {
  const chunks: string[] = [];
  const stream = { isTTY: tty, columns: 200, write: (s: string) => (chunks.push(s), true) };
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => chunks.join('') };
}

/** A file settled ok, fetched, of `bytes` bytes. */
function settled(link: string, bytes: number, listedBytes: number): FilesEvent {
  const row: FileRow = {
    id: 1,
    collection_id: 1,
    link,
    url: `http://h/media/images/1/${link}`,
    path: `1/${link}`,
    bytes,
    sha256: 'a'.repeat(64),
    mtime_ns: null,
    status: 'ok',
    reason: null,
  };
  return { type: 'file', row, fetched: true, listedBytes };
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(0);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('FilesProgress', () => {
  it("counts toward the listed total only the listed files' bytes: a thumbnail (--with, no listed size) is not", () => {
    // One image of 1,000 listed bytes and its thumbnail: the thumbnail's 600 bytes come first, then 200 of the image.
    const { stream, text } = fakeStream(false);
    const progress = new FilesProgress(stream, false, 1_000);
    progress.onEvent({ type: 'plan', files: 2, bytes: 1000 });
    progress.onEvent({ type: 'bytes', bytes: 600 });
    progress.onEvent(settled('thumbnail', 600, 0));
    progress.onEvent({ type: 'bytes', bytes: 200 });
    vi.advanceTimersByTime(1_000);
    progress.finish();
    const lines = text().trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^img-etl: files: 20\.0% 200 B\/1\.0 kB, 1\/2 files, /);
  });
});
