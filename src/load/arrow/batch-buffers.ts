/**
 * A record batch as its buffers, for the staging folder: a JSON header, then every buffer as it is, 8-byte aligned, so
 * that read back the columns are views of the bytes read. Arrow's IPC format costs far more for a page of a hundred
 * columns (docs/performance.md, "Staged columns"), and staging is on every page's path. Only the column types img-etl
 * writes: 64-bit numbers and timestamps, booleans, UTF-8, UTF-8 dictionaries.
 */
import * as arrow from 'apache-arrow';

/** What the header says of one column: its nulls and the sizes of its buffers (and of its dictionary's). */
interface ColumnHeader {
  nulls: number;
  sizes: number[];
}

interface Header {
  names: string[];
  rows: number;
  columns: ColumnHeader[];
}

/** The bytes of `batch`'s buffers, read back by `readBatchBuffers` with the same schema. */
export function batchBuffers(batch: arrow.RecordBatch): Uint8Array {
  const buffers: Uint8Array[] = [];
  const columns = batch.data.children.map((data): ColumnHeader => {
    const own = buffersOf(data);
    buffers.push(...own);
    return { nulls: data.nullCount, sizes: own.map((b) => b.byteLength) };
  });
  const header: Header = { names: batch.schema.fields.map((f) => f.name), rows: batch.numRows, columns };
  const text = Buffer.from(JSON.stringify(header));
  const parts: Uint8Array[] = [];
  const length = Buffer.alloc(4);
  length.writeUInt32LE(text.byteLength);
  parts.push(length, text, padding(4 + text.byteLength));
  for (const buffer of buffers) parts.push(buffer, padding(buffer.byteLength));
  return Buffer.concat(parts);
}

/** The names of the columns whose buffers `bytes` holds. */
export function batchBufferNames(bytes: Uint8Array): string[] {
  return readHeader(bytes).header.names;
}

/** The header of batch buffers, and its size in bytes. */
function readHeader(bytes: Uint8Array): { header: Header; size: number } {
  const size = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  return { header: JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 4, size).toString()) as Header, size };
}

/** The batch of `schema` whose buffers `bytes` holds; throws when they are of other columns. */
export function readBatchBuffers(schema: arrow.Schema, input: Uint8Array): arrow.RecordBatch {
  // Views of 64-bit values need 8-byte alignment.
  const bytes = input.byteOffset % 8 === 0 ? input : new Uint8Array(input);
  const { header, size } = readHeader(bytes);
  const names = schema.fields.map((f) => f.name);
  if (header.names.join('\0') !== names.join('\0'))
    throw new TypeError(`holds columns ${header.names.join(', ')}, not ${names.join(', ')}`);
  let at = aligned(4 + size);
  const take = (n: number) => {
    const view = new Uint8Array(bytes.buffer, bytes.byteOffset + at, n);
    at = aligned(at + n);
    return view;
  };
  const children = schema.fields.map((field, j) => {
    const column = header.columns[j]!;
    return dataOf(field.type as arrow.DataType, header.rows, column.nulls, column.sizes.map(take));
  });
  const type = new arrow.Struct(schema.fields);
  return new arrow.RecordBatch(schema, arrow.makeData({ type, length: header.rows, nullCount: 0, children }));
}

/** A column's buffers: validity (empty without nulls), then its values (offsets and bytes for text; a dictionary's). */
function buffersOf(data: arrow.Data): Uint8Array[] {
  const validity = data.nullCount > 0 && data.nullBitmap !== undefined ? data.nullBitmap : new Uint8Array(0);
  if (data.offset !== 0) throw new TypeError('batch buffers: a column sliced from another');
  const array = data.values as ArrayBufferView;
  const values = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  if (arrow.DataType.isUtf8(data.type)) return [validity, bytesOf(data.valueOffsets as Int32Array), values];
  if (arrow.DataType.isDictionary(data.type)) {
    const dictionary = (data.dictionary as arrow.Vector<arrow.Utf8>).data;
    if (dictionary.length !== 1) throw new TypeError('batch buffers: a dictionary of several chunks');
    const [words] = dictionary;
    return [validity, values, bytesOf(words!.valueOffsets), words!.values];
  }
  return [validity, values];
}

/** Column Data of `type` over its buffers, as buffersOf gave them. */
function dataOf(type: arrow.DataType, length: number, nullCount: number, buffers: Uint8Array[]): arrow.Data {
  const [validity, values, third, fourth] = buffers as [Uint8Array, Uint8Array, Uint8Array?, Uint8Array?];
  const nullBitmap = nullCount > 0 ? validity : undefined;
  if (arrow.DataType.isUtf8(type))
    return arrow.makeData({ type, length, nullCount, nullBitmap, valueOffsets: int32(values), data: third! });
  if (arrow.DataType.isDictionary(type)) {
    const words = int32(third!);
    const utf8 = arrow.makeData({
      type: new arrow.Utf8(),
      length: words.length - 1,
      valueOffsets: words,
      data: fourth!,
    });
    const dictionary = new arrow.Vector([utf8]);
    const indices = int32(values);
    return arrow.makeData({ type: type, length, nullCount, nullBitmap, data: indices, dictionary });
  }
  if (arrow.DataType.isBool(type)) return arrow.makeData({ type, length, nullCount, nullBitmap, data: values });
  const words = new (type as arrow.Int64).ArrayType(values.buffer, values.byteOffset, values.byteLength / 8);
  return arrow.makeData({ type: type as arrow.Int64, length, nullCount, nullBitmap, data: words });
}

function bytesOf(array: Int32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function int32(bytes: Uint8Array): Int32Array {
  return new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

const aligned = (n: number) => Math.ceil(n / 8) * 8;
const padding = (n: number) => new Uint8Array(aligned(n) - n);
