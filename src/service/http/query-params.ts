/**
 * Query strings as Django and Python read and write them: QueryDict parsing (parse_qsl with
 * blank values kept, last value wins), Python `int()` on a parameter, and `urlencode(doseq=True)`.
 */

/**
 * The query as an ordered list of [name, value] pairs, decoded like Python's `parse_qsl(qs, keep_blank_values=True)`.
 */
export function parseQueryString(query: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const field of query.split('&')) {
    if (field === '') continue;
    const equals = field.indexOf('=');
    const name = equals === -1 ? field : field.slice(0, equals);
    const value = equals === -1 ? '' : field.slice(equals + 1);
    pairs.push([unquotePlus(name), unquotePlus(value)]);
  }
  return pairs;
}

/** The value a Django QueryDict gives for `name`: the last one when the parameter is repeated. */
export function lastValue(pairs: readonly (readonly [string, string])[], name: string): string | undefined {
  for (let i = pairs.length - 1; i >= 0; i--) {
    const pair = pairs[i] as readonly [string, string];
    if (pair[0] === name) return pair[1];
  }
  return undefined;
}

/** Python's `unquote_plus(s, encoding='utf-8', errors='replace')`: `+` is a space, bad escapes stay literal. */
export function unquotePlus(text: string): string {
  return unquote(text.replaceAll('+', ' '));
}

/**
 * Python's `unquote(s, encoding='utf-8', errors='replace')`: `%XX` escapes decoded as UTF-8, bad escapes kept
 * literally.
 */
export function unquote(text: string): string {
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '%' && isHex(text[i + 1]) && isHex(text[i + 2])) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      const char = String.fromCodePoint(text.codePointAt(i) as number);
      for (const byte of encoder.encode(char)) bytes.push(byte);
      i += char.length - 1;
    }
  }
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(Uint8Array.from(bytes));
}

/** Python's `quote_plus(s)`: UTF-8 percent-encoding that keeps only letters, digits and `_.-~`, space as `+`. */
export function quotePlus(text: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(text)) {
    if (ALWAYS_SAFE.test(String.fromCharCode(byte))) out += String.fromCharCode(byte);
    else if (byte === 0x20) out += '+';
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Python's `urlencode(sorted(query_dict.items()), doseq=True)`: keys in code-point order, every value kept. */
export function urlencodeSorted(params: ReadonlyMap<string, readonly string[]>): string {
  const keys = [...params.keys()].sort(compareCodePoints);
  const parts: string[] = [];
  for (const key of keys) {
    for (const value of params.get(key) ?? []) parts.push(`${quotePlus(key)}=${quotePlus(value)}`);
  }
  return parts.join('&');
}

/** The pairs grouped by name in order of first appearance, like Python's `parse_qs(keep_blank_values=True)`. */
export function groupParams(pairs: readonly (readonly [string, string])[]): Map<string, string[]> {
  const grouped = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    const values = grouped.get(name);
    if (values) values.push(value);
    else grouped.set(name, [value]);
  }
  return grouped;
}

/** Most digits Python (3.11+, and security releases before it) converts from a string with `int()`. */
export const PYTHON_INT_MAX_DIGITS = 4300;

/**
 * Python's `int(text)` for base 10, or undefined where Python raises ValueError: surrounding
 * whitespace is allowed, then an optional sign and decimal digits (any Unicode decimal digit) with
 * single underscores between digits. `1.5`, `1e3`, `0x10` and the empty string are not integers.
 */
export function pythonInt(text: string): bigint | undefined {
  let ascii = '';
  for (const char of text) {
    if (PYTHON_SPACE.test(char)) ascii += ' ';
    else if (char.length === 1 && char.charCodeAt(0) < 0x80) ascii += char;
    else if (DECIMAL_DIGIT.test(char)) ascii += String(decimalValue(char));
    else return undefined;
  }
  const match = /^ *([+-]?)([0-9](?:_?[0-9])*) *$/.exec(ascii);
  if (!match) return undefined;
  const digits = (match[2] as string).replaceAll('_', '');
  if (digits.length > PYTHON_INT_MAX_DIGITS) return undefined;
  const magnitude = BigInt(digits);
  return match[1] === '-' ? -magnitude : magnitude;
}

/** Orders strings by Unicode code point, as Python compares str (JavaScript's default compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  const length = Math.min(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const difference = (left[i] as string).codePointAt(0)! - (right[i] as string).codePointAt(0)!;
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

// Python's str.isspace(): bidi classes WS, B, S and category Zs.
// eslint-disable-next-line no-control-regex -- Python counts these control characters (VT, FF, FS to US) as space
const PYTHON_SPACE = /^[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/u;
const DECIMAL_DIGIT = /^\p{Nd}$/u;
/** The bytes `quote_plus` never escapes: ASCII letters and digits and `_.-~`. */
const ALWAYS_SAFE = /^[A-Za-z0-9_.~-]$/;

// Unicode assigns decimal digits in contiguous runs of ten, 0 to 9, so a digit's value is its
// distance from the start of its run, modulo ten.
function decimalValue(char: string): number {
  const code = char.codePointAt(0) as number;
  let start = code;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return (code - start) % 10;
}

function isHex(ch: string | undefined): boolean {
  return ch !== undefined && /^[0-9A-Fa-f]$/.test(ch);
}
