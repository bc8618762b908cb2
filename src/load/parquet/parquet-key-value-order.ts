/**
 * Puts a Parquet footer's key-value metadata in key order, in place: parquet-wasm passes it through a Rust HashMap
 * whose order changes with every map, so the same data would give different bytes. The entries only trade places, so
 * every offset stays valid.
 */
import { BINARY, CompactReader, LIST, STRUCT } from './thrift-compact-reader.js';

/**
 * Sorts the key-value entries of the footer at the end of `tail` (the file's last bytes, the footer and its 8-byte
 * trailer included), in place; false (and `tail` untouched) when the footer is not all there or cannot be read.
 */
export function sortFooterKeyValues(tail: Uint8Array): boolean {
  if (tail.length < 12 || String.fromCharCode(...tail.subarray(tail.length - 4)) !== 'PAR1') return false;
  const footerLength = new DataView(tail.buffer, tail.byteOffset + tail.length - 8, 4).getUint32(0, true);
  const start = tail.length - 8 - footerLength;
  if (start < 0) return false;
  try {
    const reader = new CompactReader(tail, start, tail.length - 8);
    const size = keyValueListSize(reader);
    if (size === undefined) return true; // no key-value metadata: nothing to order
    const begin = reader.position;
    const entries = readEntries(reader, tail, size);
    entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    let at = begin;
    for (const entry of entries) {
      tail.set(entry.bytes, at);
      at += entry.bytes.length;
    }
    return true;
  } catch {
    return false;
  }
}

/** Reads the FileMetaData's fields up to its key-value list's header: the list's size; undefined when it has none. */
function keyValueListSize(reader: CompactReader): number | undefined {
  let size: number | undefined;
  reader.fields((field, type) => {
    if (field !== 5 || type !== LIST) return (reader.skip(type), false);
    const header = reader.listHeader();
    if (header.elementType !== STRUCT) throw new Error('key-value metadata is not a list of structs');
    size = header.size;
    return true;
  });
  return size;
}

/** Reads `size` KeyValue structs: each one's key and a copy of its bytes. */
function readEntries(reader: CompactReader, tail: Uint8Array, size: number): { key: string; bytes: Uint8Array }[] {
  const entries: { key: string; bytes: Uint8Array }[] = [];
  for (let i = 0; i < size; i++) {
    const from = reader.position;
    let key: string | undefined;
    reader.fields((field, type) => {
      if (field === 1 && type === BINARY) key = reader.binary();
      else reader.skip(type);
      return false;
    });
    if (key === undefined) throw new Error('a key-value entry without a key');
    // a copy, also when `tail` is a Buffer (whose slice is a view)
    entries.push({ key, bytes: Uint8Array.prototype.slice.call(tail, from, reader.position) });
  }
  return entries;
}
