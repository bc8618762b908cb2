/**
 * Bytes read as Latin-1 (a character a byte) into a string on V8's heap. Node makes a longer text (over 1,031,913
 * bytes, as a page of 1,000 records is) an external string, whose bytes only a full collection frees, so dead page
 * texts pile up outside the heap (docs/performance.md, "Page texts on the heap"). Read in parts below that size and
 * joined, the text is a heap string that the next young-generation collection frees.
 */

/** Bytes below Node's size for an external string. */
const PART = 1_000_000;

/** `bytes.toString('latin1', start, end)`, as a string on V8's heap. */
export function latin1Text(bytes: Buffer, start = 0, end = bytes.length): string {
  if (end - start <= PART) return bytes.toString('latin1', start, end);
  let text = '';
  for (let at = start; at < end; at += PART) text += bytes.toString('latin1', at, Math.min(end, at + PART));
  return text;
}
