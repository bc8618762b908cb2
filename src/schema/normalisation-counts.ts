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

/** Adds `from` into `into`, `times` over (the counts of as many rows that each replaced the same). */
export function addCounts(into: NormalisationCounts, from: NormalisationCounts, times = 1): void {
  for (const [column, n] of Object.entries(from.sentinelToNull))
    into.sentinelToNull[column] = (into.sentinelToNull[column] ?? 0) + n * times;
  for (const [column, n] of Object.entries(from.emptyToNull))
    into.emptyToNull[column] = (into.emptyToNull[column] ?? 0) + n * times;
  into.recordsWithExtra += from.recordsWithExtra * times;
}
