/**
 * The blocks an Arrow IPC file's footer lists: where each dictionary batch and record batch message starts, and its
 * lengths. The footer is a flatbuffer (File.fbs: `table Footer { version; schema; dictionaries: [Block];
 * recordBatches: [Block]; … }`, `struct Block { offset: long; metaDataLength: int; bodyLength: long }`), read here by
 * hand: apache-arrow decodes it only in files of its own that it does not export.
 */
import { MessageHeader } from 'apache-arrow';

/** One message a footer lists: its start, its prefix and metadata's length, its body's length, and its kind. */
export interface ArrowFileBlock {
  offset: number;
  metadata: number;
  body: number;
  header: MessageHeader.DictionaryBatch | MessageHeader.RecordBatch;
}

/** The footer's fields of blocks (their ids in File.fbs), and the size of a Block struct with its padding. */
const DICTIONARIES = 2;
const RECORD_BATCHES = 3;
const BLOCK = 24;

/** The dictionary and record batch blocks of `footer` (the footer's bytes), or undefined where it does not decode. */
export function arrowFooterBlocks(footer: Buffer): ArrowFileBlock[] | undefined {
  try {
    const table = footer.readUInt32LE(0);
    const vtable = table - footer.readInt32LE(table);
    const vtableSize = footer.readUInt16LE(vtable);
    const blocks = (field: number, header: ArrowFileBlock['header']): ArrowFileBlock[] => {
      const slot = 4 + 2 * field;
      const at = slot < vtableSize ? footer.readUInt16LE(vtable + slot) : 0;
      if (at === 0) return [];
      const vector = table + at + footer.readUInt32LE(table + at);
      const length = footer.readUInt32LE(vector);
      if (vector + 4 + length * BLOCK > footer.length) throw new RangeError('blocks beyond the footer');
      return Array.from({ length }, (_, i) => {
        const block = vector + 4 + i * BLOCK;
        const [offset, body] = [footer.readBigInt64LE(block), footer.readBigInt64LE(block + 16)];
        return { offset: Number(offset), metadata: footer.readInt32LE(block + 8), body: Number(body), header };
      });
    };
    const all = [
      ...blocks(DICTIONARIES, MessageHeader.DictionaryBatch),
      ...blocks(RECORD_BATCHES, MessageHeader.RecordBatch),
    ];
    if (all.some((b) => b.offset < 0 || b.metadata < 0 || b.body < 0)) return undefined;
    return all;
  } catch {
    return undefined; // a read past its end: the footer's offsets are not those of a footer
  }
}
