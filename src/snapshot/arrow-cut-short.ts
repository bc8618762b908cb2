/**
 * Whether an Arrow IPC file is whole, from its framing alone, before apache-arrow reads it: apache-arrow's reader takes
 * the end of the bytes for the end of the data (a stream cut at a message boundary, or within a message's prefix, reads
 * as fewer rows; a file-format file cut short can read as none), which a diff would report as removed rows. The Arrow
 * format (https://arrow.apache.org/docs/format/Columnar.html#ipc-streaming-format): a stream is messages, each a
 * continuation marker (0xFFFFFFFF), the length of its metadata, the metadata (giving the length of its body) and the
 * body, ended by an end-of-stream marker (0xFFFFFFFF, then 0); the spec lets a writer leave that marker out, but
 * Arrow's writers (apache-arrow, Arrow C++ and so pyarrow, polars) all write it. Nothing follows the marker: a reader
 * stops there, so bytes after it (a second stream appended) would go unread. A file is `ARROW1`, padding, such a
 * stream, the footer, its length and `ARROW1` again.
 */
import type { FileHandle } from 'node:fs/promises';
import { Message } from 'apache-arrow';

const MAGIC = Buffer.from('ARROW1', 'latin1');
const CONTINUATION = 0xffffffff;
/** A message's prefix: the continuation marker and the metadata's length. */
const PREFIX = 8;

/**
 * Why the Arrow IPC data of `handle` is cut short or damaged, in words to follow `cannot read FILE: `; undefined when
 * its framing is whole (what its messages hold is for apache-arrow's reader to find).
 */
export async function arrowCutShort(handle: FileHandle): Promise<string | undefined> {
  const size = (await handle.stat()).size;
  const head = await readAt(handle, 0, MAGIC.length);
  return head.equals(MAGIC) ? fileCutShort(handle, size) : streamCutShort(handle, size);
}

/** A file-format file ends with `ARROW1` after its footer; without it, the footer and what follows it are lost. */
async function fileCutShort(handle: FileHandle, size: number): Promise<string | undefined> {
  const tail = size >= 2 * MAGIC.length ? await readAt(handle, size - MAGIC.length, MAGIC.length) : undefined;
  if (tail !== undefined && tail.equals(MAGIC)) return undefined;
  return 'the Arrow IPC file does not end with its footer and ARROW1: it is cut short';
}

/** Walks a stream's messages by their prefixes and metadata (their bodies unread) to its end-of-stream marker. */
async function streamCutShort(handle: FileHandle, size: number): Promise<string | undefined> {
  let at = 0;
  for (let message = 1; ; message++) {
    if (at === size)
      return (
        'the Arrow IPC stream ends without its end-of-stream marker: it is cut short ' +
        '(Arrow writers end a stream with one)'
      );
    const within = (end: number): string =>
      `the Arrow IPC stream is cut short within a message (message ${message} at byte ${at} runs to byte ${end}, ` +
      `the file has ${size} bytes)`;
    if (at + PREFIX > size) return within(at + PREFIX);
    const prefix = await readAt(handle, at, PREFIX);
    const length = prefix.readInt32LE(4);
    if (prefix.readUInt32LE(0) !== CONTINUATION || length < 0)
      return `the Arrow IPC stream is damaged: byte ${at} does not start a message (message ${message})`;
    if (length === 0) return afterTheEnd(at + PREFIX, size); // the end-of-stream marker
    if (at + PREFIX + length > size) return within(at + PREFIX + length);
    let body: number;
    try {
      body = Message.decode(await readAt(handle, at + PREFIX, length)).bodyLength;
    } catch {
      return `the Arrow IPC stream is damaged: message ${message} at byte ${at} does not decode`;
    }
    const end = at + PREFIX + length + body;
    if (end > size) return within(end);
    at = end;
  }
}

/**
 * Bytes after a stream's end-of-stream marker (which ends at `end`): apache-arrow's reader stops at the marker, so a
 * second stream written after the first (`cat a.arrows b.arrows`) would read as the first one's rows alone.
 */
function afterTheEnd(end: number, size: number): string | undefined {
  if (end === size) return undefined;
  return (
    `the Arrow IPC stream goes on after its end-of-stream marker (at byte ${end - PREFIX}, ${size - end} bytes ` +
    'follow it): a second stream or other bytes, which would not be read (one stream is read whole, not two)'
  );
}

/** `length` bytes of the file from `position` (fewer at its end). */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}
