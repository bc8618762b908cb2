/**
 * Which collection each record of a page belongs to, kept in the journal compactly: the list serves a collection's
 * records mostly side by side, so a page's `collection_id`s are written as runs `[id, length, id, length, …]`.
 */

/** The `collection_id` of each record as runs; null for a record without a usable one. */
export function collectionRuns(records: readonly unknown[]): (number | null)[] {
  const runs: (number | null)[] = [];
  for (const record of records) {
    const cid = collectionIdOf(record);
    if (runs.length > 0 && runs[runs.length - 2] === cid) (runs[runs.length - 1] as number)++;
    else runs.push(cid, 1);
  }
  return runs;
}

/** The runs back as one collection id (or null) per record position. */
export function expandRuns(runs: readonly (number | null)[]): (number | null)[] {
  const out: (number | null)[] = [];
  for (let i = 0; i + 1 < runs.length; i += 2)
    for (let n = 0; n < (runs[i + 1] as number); n++) out.push(runs[i] as number | null);
  return out;
}

/** The distinct NIDM results packages the records name (`nidm_results`), with the collection of each. */
export function packagesOf(records: readonly unknown[]): [number, string][] {
  const seen = new Map<string, [number, string]>();
  for (const record of records) {
    const cid = collectionIdOf(record);
    const url = (record as { nidm_results?: unknown } | null)?.nidm_results;
    if (cid !== null && typeof url === 'string' && url !== '') seen.set(`${cid} ${url}`, [cid, url]);
  }
  return [...seen.values()];
}

/** A record's `collection_id` when it is a positive safe integer, else null. */
export function collectionIdOf(record: unknown): number | null {
  const cid = (record as { collection_id?: unknown } | null)?.collection_id;
  return Number.isSafeInteger(cid) && (cid as number) > 0 ? (cid as number) : null;
}
