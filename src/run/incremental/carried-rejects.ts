/**
 * The rejects an incremental run carries over from the snapshot it builds on: read back from its rejects.ndjson, each
 * with its key and collection, so that those of the collections carried over are written again as a full run would
 * write them (the line depends only on the record: its served text, its own URL and why the schema refuses it).
 */
import { readRegularFile } from '../../load/file-system/read-regular-file.js';
import type { RejectKey } from '../../extract/staging/journal.js';
import { rejectKey } from '../../extract/staging/save-page.js';
import { objectMembers } from '../../text/raw-json.js';

/** A reject of an earlier snapshot. */
export interface CarriedReject {
  /** How it is told apart (and ordered): its usable id, or a hash of its content. */
  key: RejectKey;
  /** Its `collection_id` when usable, else null. */
  collection: number | null;
  /** The record, parsed, and its text as the file holds it (as served, on one line). */
  record: unknown;
  text: string;
}

/** The rejects of a rejects.ndjson file (checked against its manifest by the caller), in its order. */
export async function carriedRejectsOf(path: string): Promise<CarriedReject[]> {
  const rejects: CarriedReject[] = [];
  const text = (await readRegularFile(path, { maxBytes: 256 << 20, followLink: true })).toString('utf8');
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const record = objectMembers(line)
      .filter((m) => m.key === 'record')
      .at(-1);
    if (record === undefined) throw new Error(`${path}: a line without its record`);
    const text = line.slice(record.valueStart, record.valueEnd);
    const parsed = JSON.parse(text) as unknown;
    const cid = (parsed as { collection_id?: unknown } | null)?.collection_id;
    const collection = Number.isSafeInteger(cid) ? (cid as number) : null;
    rejects.push({ key: rejectKey(parsed), collection, record: parsed, text });
  }
  return rejects;
}
