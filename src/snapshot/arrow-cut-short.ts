/**
 * Whether an Arrow IPC file is whole, from its framing alone, before apache-arrow reads it: apache-arrow's reader takes
 * the end of the bytes for the end of the data (a stream cut at a message boundary, or within a message's prefix, reads
 * as fewer rows; a file-format file cut short can read as none), which a diff would report as removed rows. The Arrow
 * format (https://arrow.apache.org/docs/format/Columnar.html#ipc-streaming-format): a stream is messages, each a
 * continuation marker (0xFFFFFFFF), the length of its metadata, the metadata (giving the length of its body) and the
 * body, ended by an end-of-stream marker (0xFFFFFFFF, then 0); the spec lets a writer leave that marker out, but
 * Arrow's writers (apache-arrow, Arrow C++ and so pyarrow, polars) all write it. Nothing follows the marker: a reader
 * stops there, so bytes after it (a second stream appended) would go unread. A file
 * (https://arrow.apache.org/docs/format/Columnar.html#ipc-file-format) is `ARROW1`, padding, such a stream, the
 * footer, its length and `ARROW1` again; a reader reads the batches at the offsets its footer lists, so the footer must
 * list this file's own messages, which must end where it starts (not a second file's footer, `cat a.arrow b.arrow`).
 */
import type { FileHandle } from 'node:fs/promises';
import { Message, MessageHeader } from 'apache-arrow';
import { type ArrowFileBlock, arrowFooterBlocks } from './arrow-footer-blocks.js';

const MAGIC = Buffer.from('ARROW1', 'latin1');
const CONTINUATION = 0xffffffff;
/** A message's prefix: the continuation marker and the metadata's length; before Arrow 0.15, the length alone. */
const PREFIX = 8;
const LEGACY_PREFIX = 4;

/**
 * Why the Arrow IPC data of `handle` is cut short or damaged, in words to follow `cannot read FILE: `; undefined when
 * its framing is whole (what its messages hold is for apache-arrow's reader to find).
 */
export async function arrowCutShort(handle: FileHandle): Promise<string | undefined> {
  const size = (await handle.stat()).size;
  const head = await readAt(handle, 0, MAGIC.length);
  return head.equals(MAGIC) ? fileCutShort(handle, size) : streamCutShort(handle, size);
}

/**
 * A file-format file ends with `ARROW1` after its footer; without it, the footer and what follows it are lost. Its
 * footer must be this file's: apache-arrow reads the batches at the offsets the footer lists, so two files one after
 * the other (`cat a.arrow b.arrow`) would read the second one's footer pointing into the first one's bytes.
 */
async function fileCutShort(handle: FileHandle, size: number): Promise<string | undefined> {
  const tail = size >= 2 * MAGIC.length ? await readAt(handle, size - MAGIC.length, MAGIC.length) : undefined;
  if (tail === undefined || !tail.equals(MAGIC))
    return 'the Arrow IPC file does not end with its footer and ARROW1: it is cut short';
  const length = size >= 18 ? (await readAt(handle, size - 10, 4)).readInt32LE(0) : -1;
  const footer = size - 10 - length;
  if (length <= 0 || footer < 8) return undefined; // no footer to follow: apache-arrow says the file is damaged
  const blocks = arrowFooterBlocks(await readAt(handle, footer, length));
  if (blocks === undefined) return undefined; // likewise
  return notOneFile(handle, footer, blocks);
}

/**
 * Walks a file's messages up to its footer (which starts at `footer`): they must end there (an end-of-stream marker
 * may end them), and the dictionary and record batches among them must be those its footer lists. The walk starts at
 * byte 8, after `ARROW1` and its padding, where the schema message starts; polars writes that message without its
 * prefix (readers take the schema from the footer), so there the walk starts at the first block the footer lists.
 */
async function notOneFile(handle: FileHandle, footer: number, blocks: ArrowFileBlock[]): Promise<string | undefined> {
  const notOne = (detail: string): string =>
    `the Arrow IPC file is not one whole file: ${detail}: two files one after the other (cat a.arrow b.arrow) ` +
    'or other bytes, which would be read wrong (one file is read whole, not two)';
  const listed = new Map(blocks.map((block) => [block.offset, block]));
  const first =
    (await readAt(handle, 8, 4)).readUInt32LE(0) === CONTINUATION
      ? 8
      : [...listed.keys()].reduce((a, b) => Math.min(a, b), Infinity);
  const found = new Set<number>();
  for (let at = first; at < footer;) {
    const frame = await frameAt(handle, at, footer);
    if (frame.kind === 'none' || frame.kind === 'undecodable')
      return notOne(`byte ${at}, before its footer at byte ${footer}, does not start a message`);
    if (frame.kind === 'beyond') return notOne(`its message at byte ${at} runs to byte ${frame.end}, past its footer`);
    if (frame.kind === 'end' && frame.end !== footer)
      return notOne(`its end-of-stream marker at byte ${at} is ${footer - frame.end} bytes before its footer`);
    if (frame.kind === 'message' && isBatch(frame.header)) {
      const block = listed.get(at);
      if (block?.header !== frame.header || block.metadata !== frame.end - at - frame.body || block.body !== frame.body)
        return notOne(`its ${BATCH[frame.header]} at byte ${at} is not one its footer lists`);
      found.add(at);
    }
    at = frame.end;
  }
  const lost = blocks.find((block) => !found.delete(block.offset)); // not found, or listed twice
  if (lost === undefined) return undefined;
  return notOne(`its footer lists a ${BATCH[lost.header]} at byte ${lost.offset}, where none of its messages is`);
}

/** The messages a footer lists, named. */
const BATCH = { [MessageHeader.DictionaryBatch]: 'dictionary batch', [MessageHeader.RecordBatch]: 'record batch' };

function isBatch(header: MessageHeader): header is ArrowFileBlock['header'] {
  return header === MessageHeader.DictionaryBatch || header === MessageHeader.RecordBatch;
}

/** Walks a stream's messages by their prefixes and metadata (their bodies unread) to its end-of-stream marker. */
async function streamCutShort(handle: FileHandle, size: number): Promise<string | undefined> {
  for (let at = 0, message = 1; ; message++) {
    if (at === size)
      return (
        'the Arrow IPC stream ends without its end-of-stream marker: it is cut short ' +
        '(Arrow writers end a stream with one)'
      );
    const frame = await frameAt(handle, at, size);
    if (frame.kind === 'beyond')
      return (
        `the Arrow IPC stream is cut short within a message (message ${message} at byte ${at} runs to byte ` +
        `${frame.end}, the file has ${size} bytes)`
      );
    if (frame.kind === 'none')
      return `the Arrow IPC stream is damaged: byte ${at} does not start a message (message ${message})`;
    if (frame.kind === 'undecodable')
      return `the Arrow IPC stream is damaged: message ${message} at byte ${at} does not decode`;
    if (frame.kind === 'end') return afterTheEnd(at, frame.end, size);
    at = frame.end;
  }
}

/** What starts at a byte of IPC messages: a message, the end-of-stream marker, or neither. */
type Frame =
  | { kind: 'message'; end: number; body: number; header: MessageHeader }
  | { kind: 'end'; end: number }
  | { kind: 'beyond'; end: number }
  | { kind: 'none' }
  | { kind: 'undecodable' };

/**
 * The message or end-of-stream marker at byte `at`, read by its prefix and metadata, which must end by `limit`. The
 * prefix is the continuation marker and the metadata's length, or (Arrow before 0.15, pyarrow's
 * `use_legacy_format`) the length alone; a length of 0 is the end-of-stream marker.
 */
async function frameAt(handle: FileHandle, at: number, limit: number): Promise<Frame> {
  if (at + LEGACY_PREFIX > limit) return { kind: 'beyond', end: at + LEGACY_PREFIX };
  const head = await readAt(handle, at, PREFIX);
  const prefix = head.readUInt32LE(0) === CONTINUATION ? PREFIX : LEGACY_PREFIX;
  if (at + prefix > limit) return { kind: 'beyond', end: at + prefix };
  const length = head.readInt32LE(prefix - 4);
  if (length < 0) return { kind: 'none' };
  if (length === 0) return { kind: 'end', end: at + prefix };
  if (at + prefix + length > limit) return { kind: 'beyond', end: at + prefix + length };
  let message: Message<MessageHeader>;
  try {
    message = Message.decode(await readAt(handle, at + prefix, length));
  } catch {
    return { kind: 'undecodable' };
  }
  const end = at + prefix + length + message.bodyLength;
  if (end > limit) return { kind: 'beyond', end };
  return { kind: 'message', end, body: message.bodyLength, header: message.headerType };
}

/**
 * Bytes after a stream's end-of-stream marker (at byte `at`, ending at `end`): apache-arrow's reader stops at the
 * marker, so a second stream written after the first (`cat a.arrows b.arrows`) would read as the first one's rows
 * alone.
 */
function afterTheEnd(at: number, end: number, size: number): string | undefined {
  if (end === size) return undefined;
  return (
    `the Arrow IPC stream goes on after its end-of-stream marker (at byte ${at}, ${size - end} bytes ` +
    'follow it): a second stream or other bytes, which would not be read (one stream is read whole, not two)'
  );
}

/** `length` bytes of the file from `position` (fewer at its end). */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}
