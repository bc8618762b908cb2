/**
 * Where values lie in JSON text, for keeping them exactly as served: Node 20's JSON.parse gives no access to the
 * source text, and it rounds integers past 2^53, turns 1e400 into Infinity (null once written back) and respells
 * numbers (`1.0` → 1, `1E5` → 100000). A small scanner over text that is known to be JSON (it was parsed already):
 * it finds the span of each element of a page's `results` and of each member of a record, skipping strings with
 * indexOf, and never decodes a value. It works on the page's bytes read as Latin-1 too: every byte of a UTF-8
 * sequence is 0x80 or more, never a quote, a backslash or a bracket, so the spans are byte offsets.
 */

import { latin1Text } from './latin1-text.js';
import { bufferView } from './buffer-view.js';

/** A part of a text: from `start` up to, not including, `end`. */
export interface TextSpan {
  start: number;
  end: number;
}

/** One member of an object as written: its key as JSON.parse gives it, and where its key's and value's texts are. */
export interface RawMember {
  /** The key, decoded. */
  key: string;
  /** Where the key's string literal is. */
  keyStart: number;
  keyEnd: number;
  /** Where the value's text is (no surrounding whitespace). */
  valueStart: number;
  valueEnd: number;
}

const [QUOTE, BACKSLASH, COMMA, COLON] = [0x22, 0x5c, 0x2c, 0x3a];
const [OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = [0x7b, 0x7d, 0x5b, 0x5d];
/** A UTF-8 byte order mark read as Latin-1, and as UTF-16. */
const BOM_LATIN1 = '\xef\xbb\xbf';
const BOM = '\ufeff';

/**
 * The span of each element of the top-level object's `results` array (the last `results` key, as JSON.parse keeps);
 * `text` is the bytes as Latin-1 text when it was made already.
 */
export function resultSpans(bytes: Uint8Array, text = latin1Text(bufferView(bytes))): TextSpan[] {
  const at = text.startsWith(BOM_LATIN1) ? BOM_LATIN1.length : 0;
  const results = objectMembers(text, skipSpace(text, at))
    .filter((m) => m.key === 'results')
    .at(-1);
  if (results === undefined) throw new Error('raw json: the page has no "results"');
  return arrayElements(text, results.valueStart);
}

/**
 * Every member of the object whose `{` is at `start`, in the order written, a key written twice listed twice.
 * JSON.parse keeps a repeated key's last value, at the place its first occurrence has in the object's key order.
 */
export function objectMembers(text: string, start = skipSpace(text, text.startsWith(BOM) ? 1 : 0)): RawMember[] {
  if (text.charCodeAt(start) !== OPEN_BRACE) throw new Error(`raw json: expected an object at ${start}`);
  const members: RawMember[] = [];
  let i = skipSpace(text, start + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) return members;
  for (;;) {
    const keyEnd = skipString(text, i);
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
    const valueEnd = skipValue(text, valueStart);
    members.push({ key: memberKey(text, i, keyEnd), keyStart: i, keyEnd, valueStart, valueEnd });
    i = skipSpace(text, valueEnd);
    if (text.charCodeAt(i) !== COMMA) return members;
    i = skipSpace(text, i + 1);
  }
}

/**
 * Visits the members of the object whose text is all of `text`, from the last to the first, until `visit` returns
 * false: the last occurrence of a repeated key (the value JSON.parse keeps) comes first, and keys near the end are
 * found without reading the rest of the object.
 */
export function eachMemberFromEnd(
  text: string,
  visit: (keyStart: number, keyEnd: number, valueStart: number, valueEnd: number) => boolean,
): void {
  let i = skipSpaceBack(text, text.length - 1);
  if (text.charCodeAt(i) !== CLOSE_BRACE) throw new Error(`raw json: expected an object ending at ${i}`);
  i = skipSpaceBack(text, i - 1);
  if (text.charCodeAt(i) === OPEN_BRACE) return;
  for (;;) {
    const valueStart = valueStartBack(text, i);
    const keyEnd = skipSpaceBack(text, skipSpaceBack(text, valueStart - 1) - 1) + 1; // before the colon
    const keyStart = stringStartBack(text, keyEnd - 1);
    if (!visit(keyStart, keyEnd, valueStart, i + 1)) return;
    const before = skipSpaceBack(text, keyStart - 1);
    if (text.charCodeAt(before) !== COMMA) return;
    i = skipSpaceBack(text, before - 1);
  }
}

/** The key whose string literal spans `start` to `end`, decoded as JSON.parse decodes it. */
export function memberKey(text: string, start: number, end: number): string {
  const key = text.slice(start + 1, end - 1);
  return key.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : key;
}

/** The span of each element of the array whose `[` is at `start`. */
export function arrayElements(text: string, start: number): TextSpan[] {
  if (text.charCodeAt(start) !== OPEN_BRACKET) throw new Error(`raw json: expected an array at ${start}`);
  const elements: TextSpan[] = [];
  let i = skipSpace(text, start + 1);
  if (text.charCodeAt(i) === CLOSE_BRACKET) return elements;
  for (;;) {
    const end = skipValue(text, i);
    elements.push({ start: i, end });
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) return elements;
    i = skipSpace(text, i + 1);
  }
}

/** The JSON text on one line: as it is when it has no line break, else without the whitespace outside its strings. */
export function singleLineJson(text: string): string {
  if (!/[\r\n]/.test(text)) return text;
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = skipString(text, i);
    else if (isSpace(c)) {
      out += text.slice(from, i);
      from = i = skipSpace(text, i);
    } else i++;
  }
  return out + text.slice(from);
}

/** Where the value starting at `i` ends. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return skipString(text, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (;;) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) {
        i = skipString(text, i);
        continue;
      }
      if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return i + 1;
      else if (Number.isNaN(d)) throw new Error('raw json: the text ends inside a value');
      i++;
    }
  }
  // A number, true, false or null: up to the next delimiter.
  for (; i < text.length; i++) {
    const d = text.charCodeAt(i);
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) break;
  }
  return i;
}

/** Where the value whose last character is at `i` starts. */
function valueStartBack(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringStartBack(text, i);
  if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
    let depth = 0;
    for (;;) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) {
        i = stringStartBack(text, i) - 1;
        continue;
      }
      if (d === CLOSE_BRACE || d === CLOSE_BRACKET) depth++;
      else if ((d === OPEN_BRACE || d === OPEN_BRACKET) && --depth === 0) return i;
      else if (Number.isNaN(d)) throw new Error('raw json: the text starts inside a value');
      i--;
    }
  }
  // A number, true, false or null: back to the colon, comma, bracket or space before it.
  for (; i > 0; i--) {
    const d = text.charCodeAt(i - 1);
    if (d === COLON || d === COMMA || d === OPEN_BRACKET || isSpace(d)) break;
  }
  return i;
}

/** Where the string literal whose closing quote is at `i` starts: the first quote before it that is not escaped. */
function stringStartBack(text: string, i: number): number {
  for (let at = text.lastIndexOf('"', i - 1); at !== -1; at = text.lastIndexOf('"', at - 1)) {
    if (!isEscaped(text, at)) return at;
  }
  throw new Error(`raw json: the string ending at ${i} does not start`);
}

/** Where the string literal whose opening quote is at `i` ends (past its closing quote). */
export function skipString(text: string, i: number): number {
  for (let at = text.indexOf('"', i + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    if (!isEscaped(text, at)) return at + 1;
  }
  throw new Error(`raw json: the string at ${i} does not end`);
}

/** Whether the quote at `at` is escaped (an odd number of backslashes before it). */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

function skipSpace(text: string, i: number): number {
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

function skipSpaceBack(text: string, i: number): number {
  while (isSpace(text.charCodeAt(i))) i--;
  return i;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
