/**
 * The Cognitive Atlas "None / Other" sentinel pairs: depositors choose "None / Other" (id "None") as a real
 * option. Normalisation turns the sentinel into null and keeps the choice in a boolean column.
 */

/** One sentinel pair: the name and id columns, their sentinel values and the derived flag column. */
export interface SentinelPair {
  /** Column holding the Cognitive Atlas name. */
  readonly nameColumn: string;
  /** Column holding the Cognitive Atlas id. */
  readonly idColumn: string;
  /** Derived boolean column: true where the sentinel was chosen. */
  readonly flagColumn: string;
}

/** The sentinel value of the name columns. */
export const SENTINEL_NAME = 'None / Other';

/** The sentinel value of the id columns. */
export const SENTINEL_ID = 'None';

/** The two pairs: paradigm and contrast. */
export const SENTINEL_PAIRS: readonly SentinelPair[] = [
  { nameColumn: 'cognitive_paradigm_cogatlas', idColumn: 'cognitive_paradigm_cogatlas_id', flagColumn: 'cognitive_paradigm_is_other' },
  { nameColumn: 'cognitive_contrast_cogatlas', idColumn: 'cognitive_contrast_cogatlas_id', flagColumn: 'cognitive_contrast_is_other' },
];
