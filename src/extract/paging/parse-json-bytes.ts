/**
 * JSON.parse of UTF-8 bytes at less cost than decoding them first, with exactly the same result: the bytes are read as
 * one-byte Latin-1 text (a page with one non-ASCII character would otherwise become a two-byte string twice the size),
 * parsed, and the strings holding bytes from 0x80 up decoded again. A page where that would not be exact (a \u escape
 * for such a character, or no Latin-1 JSON) is decoded first.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { bufferView } from '../../text/buffer-view.js';
import { latin1Text } from '../../text/latin1-text.js';

/** What a JsonBytesError is made of. */
export interface JsonBytesErrorOptions {
  /** `UTF8`: the bytes are not valid UTF-8; `JSON`: the text is not JSON. */
  code: 'UTF8' | 'JSON';
  /** What is wrong; for `JSON`, JSON.parse's message as it is (the ExtractError that reports it makes it one line). */
  message: string;
}

/** Why bytes are not JSON text: not UTF-8, or not JSON. */
export class JsonBytesError extends Error {
  override readonly name = 'JsonBytesError';
  /** `UTF8`: the bytes are not valid UTF-8; `JSON`: the text is not JSON (the message is JSON.parse's). */
  readonly code: 'UTF8' | 'JSON';

  constructor({ code, message }: JsonBytesErrorOptions) {
    super(message);
    this.code = code;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** A character read from a byte of a UTF-8 sequence. */
const HIGH = /[\x80-\xff]/;
/** Keys seen without such characters (records repeat the same few dozen keys; checking a Set is quicker). */
const ASCII_KEYS = new Set<string>();
const MAX_ASCII_KEYS = 10_000;
const BACKSLASH_U = Buffer.from('\\u', 'latin1');
const [ZERO, SEVEN] = ['0'.charCodeAt(0), '7'.charCodeAt(0)];

/** Parses UTF-8 JSON text; throws JsonBytesError. */
export function parseJsonBytes(input: Uint8Array): unknown {
  return parseJsonBody(input).value;
}

/** JSON bytes parsed, and the bytes as Latin-1 text when the parse read them so. */
export interface ParsedBody {
  value: unknown;
  /**
   * The bytes as Latin-1 text, a character a byte (latin1-text.ts), when the parse made it: a page's searches of its
   * bytes (inexact numbers, extra keys) read this one text rather than making their own, each a copy of the page.
   */
  text?: string;
}

/** As parseJsonBytes, keeping the Latin-1 text it parsed. */
export function parseJsonBody(input: Uint8Array): ParsedBody {
  const bytes = bufferView(input);
  if (isAscii(bytes)) {
    const text = latin1Text(bytes);
    return { value: parseText(text), text };
  }
  if (!isUtf8(bytes)) throw new JsonBytesError({ code: 'UTF8', message: 'not valid UTF-8' });
  if (hasEscapeFrom0x80(bytes)) return { value: parseText(UTF8.decode(bytes)) };
  const text = latin1Text(bytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON as Latin-1: a byte order mark (which decoding drops), or not JSON at all (the message then names the
    // characters as they are).
    return { value: parseText(UTF8.decode(bytes)) };
  }
  return { value: redecode(parsed), text };
}

function parseText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new JsonBytesError({ code: 'JSON', message: (err as Error).message });
  }
}

/** Whether a `\u` escape other than \u0000-\u007f is in the bytes (or `\\u` text that looks like one). */
function hasEscapeFrom0x80(bytes: Buffer): boolean {
  for (let at = bytes.indexOf(BACKSLASH_U); at !== -1; at = bytes.indexOf(BACKSLASH_U, at + 2)) {
    if (!(bytes[at + 2] === ZERO && bytes[at + 3] === ZERO && bytes[at + 4]! >= ZERO && bytes[at + 4]! <= SEVEN))
      return true;
  }
  return false;
}

/**
 * Decodes again every string (key or value) that holds bytes of UTF-8 sequences; objects and arrays change in place.
 */
function redecode(value: unknown): unknown {
  if (typeof value === 'string') return HIGH.test(value) ? utf8(value) : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' || (typeof item === 'string' && HIGH.test(item))) value[i] = redecode(item);
    }
    return value;
  }
  const object = value as Record<string, unknown>;
  let keys = false;
  for (const key in object) {
    const item = object[key];
    if (typeof item === 'object' || (typeof item === 'string' && HIGH.test(item))) object[key] = redecode(item);
    if (!keys && !ASCII_KEYS.has(key)) {
      if (HIGH.test(key)) keys = true;
      else if (ASCII_KEYS.size < MAX_ASCII_KEYS) ASCII_KEYS.add(key);
    }
  }
  if (!keys) return object;
  // A key to decode again: a new object, in the same order (defineProperty, so that a "__proto__" key stays a key).
  const rekeyed: Record<string, unknown> = {};
  for (const key in object)
    Object.defineProperty(rekeyed, HIGH.test(key) ? utf8(key) : key, {
      value: object[key],
      writable: true,
      enumerable: true,
      configurable: true,
    });
  return rekeyed;
}

function utf8(latin1: string): string {
  return Buffer.from(latin1, 'latin1').toString('utf8');
}
