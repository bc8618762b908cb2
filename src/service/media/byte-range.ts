/** The one byte range of a `Range` header, as nginx reads it. */

/** A satisfiable range: bytes [start, end) of the file. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Reads `bytes=a-b`, `bytes=a-` and `bytes=-n` against a file of `size` bytes: the range (its end cut to the size),
 * `unsatisfiable` when it starts past the end (nginx's 416), or undefined when the header is not one range nginx
 * honours (several ranges, another unit, garbage): the whole file is then sent with 200.
 */
export function parseByteRange(header: string, size: number): ByteRange | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    return suffix === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size };
  }
  const start = Number(match[1]);
  if (start >= size) return 'unsatisfiable';
  const last = match[2] === '' ? size - 1 : Number(match[2]);
  if (last < start) return undefined;
  return { start, end: Math.min(last + 1, size) };
}
