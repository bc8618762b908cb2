/** A growable UTF-8 byte buffer: a response body is encoded straight into it, never built as one large string. */
export class BodyWriter {
  private buffer: Buffer;
  private length = 0;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }

  /** Appends the text's UTF-8 bytes. */
  write(text: string): void {
    // A UTF-16 unit never takes more than 3 UTF-8 bytes.
    const needed = this.length + text.length * 3;
    if (needed > this.buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
      this.buffer.copy(bigger, 0, 0, this.length);
      this.buffer = bigger;
    }
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  /** The bytes written so far (a view of the buffer, not a copy). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}
