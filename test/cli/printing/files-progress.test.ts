/** The files run's text progress on its own, fed events under a fake clock: what its bar and lines count. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FilesEvent } from '../../../src/files/files-events.js';
import type { FileRow } from '../../../src/files/file-status.js';
import { FilesProgress } from '../../../src/cli/printing/files-progress.js';

function fakeStream(tty: boolean) {
  const chunks: string[] = [];
  const stream = { isTTY: tty, columns: 200, write: (s: string) => (chunks.push(s), true) };
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => chunks.join('') };
}

/** A file fetched and settled, its row as files.parquet has it; `fields` give what differs from an ok file. */
function fileEvent(link: string, listedBytes: number, fields: Partial<FileRow>): FilesEvent {
  const row: FileRow = {
    id: 1,
    collection_id: 1,
    link,
    url: `http://h/media/images/1/${link}`,
    path: `1/${link}`,
    bytes: null,
    sha256: null,
    mtime_ns: null,
    status: 'ok',
    reason: null,
    ...fields,
  };
  return { type: 'file', row, fetched: true, listedBytes };
}

/** A file settled ok, fetched, of `bytes` bytes. */
function settled(link: string, bytes: number, listedBytes: number): FilesEvent {
  return fileEvent(link, listedBytes, { bytes, sha256: 'a'.repeat(64) });
}

/** A file fetched that ended `failed`, its `.part` kept. */
function failed(link: string, listedBytes: number): FilesEvent {
  const reason = `files: GET http://h/media/images/1/${link} returned 503 after 3 attempts`;
  return fileEvent(link, listedBytes, { status: 'failed', reason });
}

/** `bytes` written to the `.part` of `link`, which holds `held` bytes after them. */
function wrote(link: string, bytes: number, held: number, listedBytes: number): FilesEvent {
  return { type: 'bytes', bytes, path: `1/${link}`, held, listedBytes };
}

/** The last plain line after the next tick of a progress of `plan` fed `events`. */
function lastLine(plan: { files: number; bytes: number }, events: FilesEvent[]): string | undefined {
  const { stream, text } = fakeStream(false);
  const progress = new FilesProgress(stream, false, 1_000);
  progress.onEvent({ type: 'plan', ...plan });
  for (const event of events) progress.onEvent(event);
  vi.advanceTimersByTime(1_000);
  progress.finish();
  return text().trimEnd().split('\n').at(-1);
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
    progress.onEvent(wrote('thumbnail', 600, 600, 0));
    progress.onEvent(settled('thumbnail', 600, 0));
    progress.onEvent(wrote('a.nii.gz', 200, 200, 1000));
    vi.advanceTimersByTime(1_000);
    progress.finish();
    const lines = text().trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^img-etl: files: 20\.0% 200 B\/1\.0 kB, 1\/2 files, /);
  });

  it("counts none of a failed file's bytes as done, neither its listed size nor what it wrote", () => {
    // Two files of 500 listed bytes: 300 of the first written, then it fails.
    const line = lastLine({ files: 2, bytes: 1000 }, [wrote('a.nii.gz', 300, 300, 500), failed('a.nii.gz', 500)]);
    expect(line).toMatch(/^img-etl: files: 0\.0% 0 B\/1\.0 kB, 1\/2 files, /);
  });

  it('counts what the .part holds after a download restarted from byte 0, not the bytes written before', () => {
    // 400 bytes written, then a 200 to the Range that continues them: the .part is cut to 0 and rewritten.
    const restarted = [
      wrote('a.nii.gz', 400, 400, 1000),
      wrote('a.nii.gz', 0, 0, 1000),
      wrote('a.nii.gz', 100, 100, 1000),
    ];
    expect(lastLine({ files: 1, bytes: 1000 }, restarted)).toMatch(
      /^img-etl: files: 10\.0% 100 B\/1\.0 kB, 0\/1 files, /,
    );
  });
});
