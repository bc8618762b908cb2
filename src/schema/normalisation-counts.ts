/**
 * What normalisation replaced: the column types count here the values they turn into null (column-type.ts's
 * `normalise`), and the transform stage adds the records with unknown keys.
 */

/** How many values normalisation replaced, per column: the audit trail the manifest carries. */
export interface NormalisationCounts {
  /** `"None / Other"` and `"None"` sentinels turned into null, per column. */
  sentinelToNull: Record<string, number>;
  /** Empty strings turned into null, per column. */
  emptyToNull: Record<string, number>;
  /** Records that had keys the schema does not know (kept in `extra`). */
  recordsWithExtra: number;
}

/** Fresh, all-zero counts. */
export function emptyNormalisationCounts(): NormalisationCounts {
  return { sentinelToNull: {}, emptyToNull: {}, recordsWithExtra: 0 };
}

/** Adds `from` into `into` (a row's counts to a collection's, for every row written: no entries array made). */
export function addCounts(into: NormalisationCounts, from: NormalisationCounts): void {
  for (const column in from.sentinelToNull)
    into.sentinelToNull[column] = (into.sentinelToNull[column] ?? 0) + from.sentinelToNull[column]!;
  for (const column in from.emptyToNull)
    into.emptyToNull[column] = (into.emptyToNull[column] ?? 0) + from.emptyToNull[column]!;
  into.recordsWithExtra += from.recordsWithExtra;
}
