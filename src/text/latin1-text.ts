/**
 * Bytes read as Latin-1 (a character a byte) into a string on V8's heap. Node makes a text of more than 1,031,913
 * bytes an external string, whose bytes only a full collection frees: a page body of 1,000 records (1.7 to 3.4 MB)
 * read that way to be parsed, and again to find its records' texts, left up to ~64 MB of dead page texts outside the
 * heap at a time (measured at 500,000 records: peak RSS 286–301 MB that way, 268–279 MB this way). Read in parts
 * below that size and joined, the text is a heap string that the next young-generation collection frees.
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
