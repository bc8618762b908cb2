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
