/**
 * The served text of `extra` for the records of a page that have keys the table does not know. Most pages repeat a
 * few such keys (user-defined metadata of their collections), so their literals are searched for in the page's bytes
 * (key-literals.ts) rather than every record's span found by scanning the whole page (record-texts.ts), at a fraction
 * of the cost (docs/performance.md, "The served text of extra"). When the search cannot be sure which record a key
 * belongs to, the page is scanned.
 */
import { attachExtraText, attachRecordText } from '../schema/record-text.js';
import { RecordTexts } from '../schema/record-texts.js';
import { hasEscapedKey, isSearchableKey, keyOffsets, memberText } from '../text/key-literals.js';
import { bufferView } from '../text/buffer-view.js';

/** Distinct unknown keys on a page beyond which the scan is used: the search's pattern grows with them. */
const MAX_SEARCHED_KEYS = 100;

/** What attachExtraTexts may be given beside the page. */
export interface ExtraTextsOptions {
  /** The record texts used when the search cannot be sure; default: the page's, scanned from its body. */
  textAt?: (position: number) => string | undefined;
  /** The body as Latin-1 text, when it was made already (PageBatch.bodyText). */
  bodyText?: string | undefined;
}

/**
 * Gives each record at `positions` of the page (a valid record with keys not in `known`) the text it needs for
 * `extra`: its extra members as served (attachExtraText), or its whole text as served (attachRecordText) when the
 * search cannot be sure.
 */
export function attachExtraTexts(
  body: Uint8Array | string,
  records: readonly unknown[],
  positions: readonly number[],
  known: ReadonlySet<string>,
  { textAt, bodyText }: ExtraTextsOptions = {},
): void {
  // a text as its UTF-8 bytes (a Latin-1 text given is one of bytes served)
  const [bytes, latin1] = typeof body === 'string' ? [Buffer.from(body), undefined] : [bufferView(body), bodyText];
  const found = searchedExtraTexts(bytes, records, positions, known, latin1);
  if (found !== undefined) {
    for (const [position, text] of found) attachExtraText(records[position] as object, text);
    return;
  }
  let texts: RecordTexts | undefined;
  for (const position of positions) {
    const text = textAt !== undefined ? textAt(position) : (texts ??= new RecordTexts(bytes, latin1)).at(position);
    if (text !== undefined) attachRecordText(records[position] as object, text);
  }
}

/**
 * Each record's extra members found by searching for the unknown keys' literals, or undefined when that cannot be
 * sure. It is sure when no key of the page is written with an escape and each key is found exactly as many times as
 * the page's records have it: every record having a key writes it at least once, so each then writes it once and no
 * other object of the page has it, and the n-th literal in the page is the n-th such record's.
 */
export function searchedExtraTexts(
  bytes: Buffer,
  records: readonly unknown[],
  positions: readonly number[],
  known: ReadonlySet<string>,
  text?: string,
): Map<number, string> | undefined {
  const keys = new Set<string>();
  for (const position of positions) for (const key in records[position] as object) if (!known.has(key)) keys.add(key);
  if (keys.size > MAX_SEARCHED_KEYS || ![...keys].every(isSearchableKey) || hasEscapedKey(bytes)) return undefined;
  const members = new Map<number, Member[]>();
  for (const position of positions) members.set(position, []);
  for (const [key, offsets] of keyOffsets(bytes, keys, text)) {
    const holders = recordsWithKey(records, key);
    if (offsets.length !== holders.length) return undefined;
    const length = Buffer.byteLength(JSON.stringify(key));
    for (let n = 0; n < holders.length; n++) {
      const at = offsets[n]!;
      members.get(holders[n]!)?.push({ at, text: memberText(bytes, at, length) });
    }
  }
  const texts = new Map<number, string>();
  for (const [position, list] of members) texts.set(position, objectText(list));
  return texts;
}

/** A member found, where its key's literal is and its text. */
interface Member {
  at: number;
  text: string;
}

/** The members as one JSON object, in the order served. */
function objectText(members: Member[]): string {
  if (members.length > 1) members.sort((a, b) => a.at - b.at);
  let text = '{';
  for (let i = 0; i < members.length; i++) text += i === 0 ? members[i]!.text : `,${members[i]!.text}`;
  return `${text}}`;
}

/** The positions of the records (objects, not arrays) that have `key`, in page order. */
function recordsWithKey(records: readonly unknown[], key: string): number[] {
  const positions: number[] = [];
  for (let position = 0; position < records.length; position++) {
    const record = records[position];
    if (typeof record === 'object' && record !== null && !Array.isArray(record) && Object.hasOwn(record, key))
      positions.push(position);
  }
  return positions;
}
