/**
 * Where an object key is written in JSON bytes, found by searching for its literal instead of scanning the text
 * (raw-json.ts scans every value of a page; one regular expression of the keys' literals reads the page once). Exact
 * for text known to be JSON (it was parsed already): an unescaped quote is always a string's delimiter, so `"key"`
 * followed by a colon, where the key starts with a character that may not follow a closing quote, is always a member's
 * key.
 */
import { latin1Text } from './latin1-text.js';

/** A key whose literal can be searched for: its plain spelling is its only one without an escape. */
export function isSearchableKey(key: string): boolean {
  if (key === '' || FOLLOWS_A_STRING.has(key.charCodeAt(0))) return false;
  return !JSON.stringify(key).includes('\\');
}

/**
 * Whether any member key in the bytes is written with an escape (`"\u0061ge"`, `"a\"b"`): then a key may be written
 * in another spelling than its plain one, and a search for the plain one cannot be sure to find every occurrence.
 * Every backslash of JSON text is inside a string; the string it is in is a key when a colon follows it.
 */
export function hasEscapedKey(bytes: Buffer): boolean {
  for (let at = bytes.indexOf(BACKSLASH); at !== -1; at = bytes.indexOf(BACKSLASH, at)) {
    const end = stringEnd(bytes, at);
    if (bytes[skipSpace(bytes, end)] === COLON) return true;
    at = end;
  }
  return false;
}

/**
 * The offsets of the opening quote of every member key of `keys` (each isSearchableKey) in the bytes, in order, at
 * any depth of any object, by key; a string value equal to a key is not one. Keys written with an escape are not
 * found (hasEscapedKey). One pass of one pattern finds them all, however many keys there are. `text` is the bytes as
 * Latin-1 text, when it was made already.
 */
export function keyOffsets(bytes: Buffer, keys: Iterable<string>, text?: string): Map<string, number[]> {
  const byLiteral = new Map<string, string>();
  const offsets = new Map<string, number[]>();
  for (const key of keys) {
    // the literal's UTF-8 bytes as Latin-1 characters, a character a byte, as the text searched has them
    byLiteral.set(Buffer.from(JSON.stringify(key)).toString('latin1'), key);
    offsets.set(key, []);
  }
  if (byLiteral.size === 0) return offsets;
  const literals = [...byLiteral.keys()].map(regExpLiteral).join('|');
  for (const match of (text ?? latin1Text(bytes)).matchAll(new RegExp(`(?:${literals})(?=[ \\t\\n\\r]*:)`, 'g'))) {
    if (!isEscaped(bytes, match.index)) offsets.get(byLiteral.get(match[0])!)!.push(match.index);
  }
  return offsets;
}

/** `text` as a regular expression that matches it and nothing else. */
export function regExpLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The member whose key literal of `keyLength` bytes opens at `offset`, as `"key":value` without whitespace. */
export function memberText(bytes: Buffer, offset: number, keyLength: number): string {
  const keyEnd = offset + keyLength;
  const valueStart = skipSpace(bytes, skipSpace(bytes, keyEnd) + 1);
  const key = bytes.toString('utf8', offset, keyEnd);
  return `${key}:${bytes.toString('utf8', valueStart, valueEnd(bytes, valueStart))}`;
}

const [QUOTE, BACKSLASH, COMMA, COLON] = [0x22, 0x5c, 0x2c, 0x3a];
const [OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = [0x7b, 0x7d, 0x5b, 0x5d];
/** What may follow a string's closing quote in JSON: whitespace and the punctuation after a value or key. */
const FOLLOWS_A_STRING = new Set([0x20, 0x0a, 0x0d, 0x09, COMMA, COLON, CLOSE_BRACE, CLOSE_BRACKET]);

/** Whether the quote at `at` is escaped (an odd number of backslashes before it). */
function isEscaped(bytes: Buffer, at: number): boolean {
  let backslashes = 0;
  while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/** Past the closing quote of the string that holds offset `inside` (after its opening quote). */
function stringEnd(bytes: Buffer, inside: number): number {
  for (let at = bytes.indexOf(QUOTE, inside); at !== -1; at = bytes.indexOf(QUOTE, at + 1)) {
    if (!isEscaped(bytes, at)) return at + 1;
  }
  throw new Error(`raw json: the string around ${inside} does not end`);
}

/** Where the value starting at `i` ends. */
function valueEnd(bytes: Buffer, i: number): number {
  const c = bytes[i];
  if (c === QUOTE) return stringEnd(bytes, i + 1);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    for (let depth = 0; i < bytes.length;) {
      const d = bytes[i]!;
      if (d === QUOTE) {
        i = stringEnd(bytes, i + 1);
        continue;
      }
      if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return i + 1;
      i++;
    }
    throw new Error('raw json: the text ends inside a value');
  }
  // A number, true, false or null: up to the next delimiter.
  for (; i < bytes.length; i++) {
    if (FOLLOWS_A_STRING.has(bytes[i]!)) break;
  }
  return i;
}

function skipSpace(bytes: Buffer, i: number): number {
  for (let c = bytes[i]; c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = bytes[++i]);
  return i;
}
