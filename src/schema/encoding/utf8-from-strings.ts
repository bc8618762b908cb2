/** Builds an Arrow UTF-8 column from strings, encoding them at once where it can. */
import type { Data, Utf8 } from 'apache-arrow';
import type { ArrowModule } from '../column-type.js';
import { LoadError } from '../../text/load-error.js';

const UTF8 = new TextEncoder();

/**
 * Utf8 Data from strings and nulls. The strings are joined and encoded at once; when the bytes are as many as the
 * UTF-16 units (all ASCII, the usual case for links and codes), the offsets are the string lengths. Otherwise each
 * string is encoded on its own to find its offsets.
 */
export function utf8FromStrings(arrow: ArrowModule, strings: readonly (string | null)[]): Data<Utf8> {
  const n = strings.length;
  const offsets = new Int32Array(n + 1);
  const validity = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  let joined = '';
  let units = 0;
  for (let i = 0; i < n; i++) {
    const s = strings[i];
    if (s === null || s === undefined) nulls++;
    else {
      joined += s;
      units += s.length;
      validity[i >> 3]! |= 1 << (i & 7);
    }
    offsets[i + 1] = units;
  }
  const size = Buffer.byteLength(joined, 'utf8');
  if (size > 0x7fffffff) {
    const message = `load: a batch's strings take ${size} bytes, more than a Utf8 column holds`;
    throw LoadError.of('LOAD_INVALID_VALUE', message);
  }
  const bytes = new Uint8Array(size);
  if (size === units) UTF8.encodeInto(joined, bytes);
  else {
    const target = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let end = 0;
    for (let i = 0; i < n; i++) {
      const s = strings[i];
      if (s !== null && s !== undefined && s.length > 0) end += target.write(s, end, 'utf8');
      offsets[i + 1] = end;
    }
  }
  const nullBitmap = nulls > 0 ? validity : undefined;
  const type = new arrow.Utf8();
  return arrow.makeData({ type, length: n, nullCount: nulls, nullBitmap, valueOffsets: offsets, data: bytes });
}
