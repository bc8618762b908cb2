/**
 * Puts a Parquet footer's key-value metadata in order of key, in place. parquet-wasm hands the entries to Rust in a
 * HashMap whose hash keys change with every map a process creates, so the same data written twice in one process
 * gave the entries in different orders: same rows, different bytes. The entries only trade places, so the footer
 * keeps its length and every offset in the file stays valid. The footer is a thrift compact-protocol FileMetaData
 * whose field 5 is `list<KeyValue>`; each KeyValue's field 1 is its key.
 */

/** Sorts the key-value entries of the footer at the end of `tail` (the file's last bytes, the footer and its 8-byte trailer included), in place; false (and `tail` untouched) when the footer is not all there or cannot be read. */
export function sortFooterKeyValues(tail: Uint8Array): boolean {
  if (tail.length < 12 || String.fromCharCode(...tail.subarray(tail.length - 4)) !== 'PAR1') return false;
  const footerLength = new DataView(tail.buffer, tail.byteOffset + tail.length - 8, 4).getUint32(0, true);
  const start = tail.length - 8 - footerLength;
  if (start < 0) return false;
  try {
    const reader = new CompactReader(tail, start, tail.length - 8);
    const list = reader.findListField(5);
    if (list === undefined) return true; // no key-value metadata: nothing to order
    const entries: { key: string; bytes: Uint8Array }[] = [];
    const begin = reader.position;
    for (let i = 0; i < list.size; i++) {
      const from = reader.position;
      const key = reader.readKeyValueKey();
      entries.push({ key, bytes: Uint8Array.prototype.slice.call(tail, from, reader.position) }); // a copy, also when `tail` is a Buffer (whose slice is a view)
    }
    const sorted = [...entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    let at = begin;
    for (const entry of sorted) {
      tail.set(entry.bytes, at);
      at += entry.bytes.length;
    }
    return true;
  } catch {
    return false;
  }
}

// Thrift compact protocol type ids.
const [STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] as const;

/** Reads just enough of the compact protocol to find a field and skip anything else; throws on anything malformed. */
class CompactReader {
  constructor(
    private readonly bytes: Uint8Array,
    public position: number,
    private readonly end: number,
  ) {}

  /** In the top-level struct, moves to the elements of list field `id` and returns its size; undefined if the struct has no such field. */
  findListField(id: number): { size: number } | undefined {
    let size = 0;
    const found = this.fields((field, type) => {
      if (field !== id || type !== LIST) return this.skip(type), false;
      const header = this.listHeader();
      if (header.elementType !== STRUCT) throw new Error('key-value metadata is not a list of structs');
      size = header.size;
      return true;
    });
    return found ? { size } : undefined;
  }

  /** Reads one KeyValue struct, returning its key (field 1). */
  readKeyValueKey(): string {
    let key: string | undefined;
    this.fields((field, type) => {
      if (field === 1 && type === BINARY) key = this.binary();
      else this.skip(type);
      return false;
    });
    if (key === undefined) throw new Error('a key-value entry without a key');
    return key;
  }

  /**
   * Reads a struct's field headers in turn and hands each field's id and type to `visit`, which reads or skips the
   * value and returns true to stop there; false at the struct's end.
   */
  private fields(visit: (id: number, type: number) => boolean): boolean {
    let last = 0;
    for (;;) {
      const header = this.byte();
      const type = header & 0x0f;
      if (type === STOP) return false;
      const delta = header >> 4;
      last = delta === 0 ? this.zigzag() : last + delta;
      if (visit(last, type)) return true;
    }
  }

  private skip(type: number): void {
    switch (type) {
      case TRUE:
      case FALSE:
        return;
      case BYTE:
        this.byte();
        return;
      case I16:
      case I32:
      case I64:
        this.varint();
        return;
      case DOUBLE:
        this.advance(8);
        return;
      case BINARY:
        this.advance(this.varint());
        return;
      case LIST:
      case SET: {
        const { size, elementType } = this.listHeader();
        for (let i = 0; i < size; i++) this.skipElement(elementType);
        return;
      }
      case MAP: {
        const size = this.varint();
        if (size === 0) return;
        const types = this.byte();
        for (let i = 0; i < size; i++) {
          this.skipElement(types >> 4);
          this.skipElement(types & 0x0f);
        }
        return;
      }
      case STRUCT:
        this.skipStruct();
        return;
      default:
        throw new Error(`unknown compact type ${type}`);
    }
  }

  /** A list element: booleans take a byte of their own there. */
  private skipElement(type: number): void {
    if (type === TRUE || type === FALSE) this.byte();
    else this.skip(type);
  }

  private skipStruct(): void {
    this.fields((_, type) => (this.skip(type), false));
  }

  private listHeader(): { size: number; elementType: number } {
    const header = this.byte();
    const short = header >> 4;
    return { size: short === 15 ? this.varint() : short, elementType: header & 0x0f };
  }

  private binary(): string {
    const length = this.varint();
    const from = this.position;
    this.advance(length);
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + from, length).toString('utf8');
  }

  private byte(): number {
    if (this.position >= this.end) throw new Error('footer ends early');
    return this.bytes[this.position++]!;
  }

  private advance(n: number): void {
    if (n < 0 || this.position + n > this.end) throw new Error('footer ends early');
    this.position += n;
  }

  /** An unsigned varint, up to 53 bits. */
  private varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new Error('varint too long');
  }

  private zigzag(): number {
    const n = this.varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }
}
