/**
 * Reading Thrift's compact protocol, as Parquet footers use it: just enough for parquet-key-value-order.ts to walk a
 * struct's fields, read the strings and list headers wanted, and skip everything else. Throws on anything malformed
 * or cut short.
 */

/** Compact protocol type ids. */
export const [STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT] = [
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
] as const;

/** A cursor over compact-protocol bytes between `position` and `end`. */
export class CompactReader {
  constructor(
    private readonly bytes: Uint8Array,
    /** Where the next read starts. */
    public position: number,
    private readonly end: number,
  ) {}

  /**
   * Reads a struct's field headers in turn and hands each field's id and type to `visit`, which reads or skips the
   * value and returns true to stop there; false at the struct's end.
   */
  fields(visit: (id: number, type: number) => boolean): boolean {
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

  /** Skips a value of the given type. */
  skip(type: number): void {
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
      case SET:
        return this.skipList();
      case MAP:
        return this.skipMap();
      case STRUCT:
        this.fields((_, fieldType) => (this.skip(fieldType), false));
        return;
      default:
        throw new Error(`unknown compact type ${type}`);
    }
  }

  /** Skips a list or set: its header, then its elements. */
  private skipList(): void {
    const { size, elementType } = this.listHeader();
    for (let i = 0; i < size; i++) this.skipElement(elementType);
  }

  /** Skips a map: its size, then (unless empty) its key and value types and its entries. */
  private skipMap(): void {
    const size = this.varint();
    if (size === 0) return;
    const types = this.byte();
    for (let i = 0; i < size; i++) {
      this.skipElement(types >> 4);
      this.skipElement(types & 0x0f);
    }
  }

  /** A list or set header: its size and element type. */
  listHeader(): { size: number; elementType: number } {
    const header = this.byte();
    const short = header >> 4;
    return { size: short === 15 ? this.varint() : short, elementType: header & 0x0f };
  }

  /** A binary value as UTF-8 text. */
  binary(): string {
    const length = this.varint();
    const from = this.position;
    this.advance(length);
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + from, length).toString('utf8');
  }

  /** A list element: booleans take a byte of their own there. */
  private skipElement(type: number): void {
    if (type === TRUE || type === FALSE) this.byte();
    else this.skip(type);
  }

  private byte(): number {
    if (this.position >= this.end) throw new Error('the data ends early');
    return this.bytes[this.position++]!;
  }

  private advance(n: number): void {
    if (n < 0 || this.position + n > this.end) throw new Error('the data ends early');
    this.position += n;
  }

  /** An unsigned varint, exact up to 2^53. */
  private varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new Error('a varint longer than 10 bytes');
  }

  private zigzag(): number {
    const n = this.varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }
}
