/** Records given as data (NDJSON lines or objects): kept byte for byte, their URLs re-based on the serving origin. */
import { readFileSync } from 'node:fs';
import { parseTimestampMicros } from '../../schema/timestamp.js';
import { URL_KEYS } from '../../schema/record-keys.js';

/** A record given to the service: its JSON text (kept exactly) or an object (serialized with JSON.stringify). */
export type DataRecordInput = string | Readonly<Record<string, unknown>>;

/** A given record ready to serve: its id and its JSON text cut where the origin goes. */
export interface DataRecord {
  id: number;
  /** The record's JSON text split at every `http://neurovault.org` that starts a URL field; join with the origin. */
  parts: string[];
  /** Its `collection_id`, when that is a positive integer. */
  collectionId?: number;
  /** Its `add_date` and `modify_date` in UTC microseconds, when they are timestamps. */
  added?: number;
  modified?: number;
}

/** The origin URLs are written with in NeuroVault's own responses. */
export const NEUROVAULT_ORIGIN = 'http://neurovault.org';

const URL_FIELD = new RegExp(`("(?:${URL_KEYS.join('|')})":")http://neurovault\\.org(?=[/"])`, 'g');

/** Prepares given records for serving; throws on a record that is not a JSON object with a unique integer id. */
export function prepareDataRecords(inputs: readonly DataRecordInput[]): DataRecord[] {
  const seen = new Set<number>();
  return inputs.map((input, index) => {
    const text = typeof input === 'string' ? input.trim() : JSON.stringify(input);
    let parsed: unknown;
    try {
      parsed = typeof input === 'string' ? JSON.parse(text) : input;
    } catch (err) {
      throw new Error(`service: data record ${index + 1} is not valid JSON: ${(err as Error).message}`, { cause: err });
    }
    const id = (parsed as { id?: unknown } | null)?.id;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error(`service: data record ${index + 1} is not a JSON object: ${text.slice(0, 60)}`);
    }
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0 || id > 0xffff_ffff) {
      throw new Error(`service: data record ${index + 1} needs a positive integer "id", got ${JSON.stringify(id)}`);
    }
    if (seen.has(id)) throw new Error(`service: data record ${index + 1} repeats id ${id}`);
    seen.add(id);
    const { collection_id: cid, add_date: added, modify_date: modified } = parsed as Record<string, unknown>;
    const record: DataRecord = { id, parts: splitAtOrigin(text) };
    if (typeof cid === 'number' && Number.isSafeInteger(cid) && cid > 0) record.collectionId = cid;
    if (typeof added === 'string') record.added = micros(added);
    if (typeof modified === 'string') record.modified = micros(modified);
    return record;
  });
}

/** The record's JSON text with its URLs on `origin`. */
export function renderDataRecord(record: DataRecord, origin: string): string {
  return record.parts.length === 1 ? (record.parts[0] as string) : record.parts.join(origin);
}

/** The non-blank lines of an NDJSON file, each one record's JSON text. */
export function readNdjsonLines(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`service: cannot read data file ${path}: ${(err as Error).message}`, { cause: err });
  }
  return text.split('\n').filter((line) => line.trim() !== '');
}

function micros(timestamp: string): number | undefined {
  const value = parseTimestampMicros(timestamp);
  return value === undefined ? undefined : Number(value);
}

function splitAtOrigin(text: string): string[] {
  const parts: string[] = [];
  let last = 0;
  for (const match of text.matchAll(URL_FIELD)) {
    const cut = match.index + (match[1] as string).length;
    parts.push(text.slice(last, cut));
    last = cut + NEUROVAULT_ORIGIN.length;
  }
  parts.push(text.slice(last));
  return parts;
}
