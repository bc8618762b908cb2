/** A Buffer over the same memory as `bytes` (nothing copied): Buffer's search and decoding for any Uint8Array. */
export function bufferView(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
