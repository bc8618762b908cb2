/**
 * The JSON text a record was served as, carried on the parsed record itself under a symbol: invisible to `for…in`,
 * Object.keys, JSON.stringify and zod, and it stays with the record whatever a stage between validation and
 * normalisation filters or reorders (a side array in the batch would not).
 */

const RECORD_TEXT = Symbol('img-etl.recordText');

/** Gives a parsed record the JSON text it was served as. */
export function attachRecordText(record: object, text: string): void {
  Object.defineProperty(record, RECORD_TEXT, { value: text, configurable: true });
}

/** The JSON text a record was served as, when it was attached. */
export function recordTextOf(record: object): string | undefined {
  return (record as { [RECORD_TEXT]?: string })[RECORD_TEXT];
}

const EXTRA_TEXT = Symbol('img-etl.extraText');

/**
 * Gives a parsed record the text of its `extra` as served: its members with keys the table does not know, as one JSON
 * object, each member as written (found in the page without the record's whole text: extra-texts.ts).
 */
export function attachExtraText(record: object, text: string): void {
  Object.defineProperty(record, EXTRA_TEXT, { value: text, configurable: true });
}

/** The text of a record's `extra` as served, when it was attached. */
export function extraTextOf(record: object): string | undefined {
  return (record as { [EXTRA_TEXT]?: string })[EXTRA_TEXT];
}
