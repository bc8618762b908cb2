/** A column a pipeline adds to a table, computed for each row from what the row already holds. */
import { LoadError } from '../text/load-error.js';
import type { Column, ColumnType } from './column-type.js';
import type { Row, RowValue } from './row.js';
import { messageOf } from '../text/message-of.js';

/**
 * A derived column `name` of `type` (one of the column types, e.g. `int64`), described by `doc`, whose value is
 * `value(row, record)`: `row` holds the row's record columns normalised (timestamps as UTC microseconds, sentinels as
 * null) and the derived columns before it; `record` is the record as served. Give it to `withColumns` or a pipeline's
 * `columns`; a value that does not fit `type` fails the run with the column's name (for `json`, text that is not JSON),
 * and so does a `value` that throws (LOAD_DERIVE_FAILED, with the record's id and the reason).
 */
export function derivedColumn(
  name: string,
  type: ColumnType,
  doc: string,
  value: (row: Readonly<Row>, record: Readonly<Record<string, unknown>>) => RowValue,
): Column {
  const derive = (record: Readonly<Record<string, unknown>>, row: Readonly<Row>) => {
    let derived: RowValue;
    try {
      derived = value(row, record);
    } catch (cause) {
      throw deriveFailed(name, row, cause);
    }
    const promise = derived as unknown as PromiseLike<unknown> | null;
    if (typeof promise?.then === 'function') {
      promise.then(undefined, () => undefined); // its rejection, if any, is not the process's to crash on
      throw deriveFailed(
        name,
        row,
        'it returned a Promise (an async function?): a derived column gives its value at once',
      );
    }
    if (typeof derived === 'string' && LONE_SURROGATE.test(derived)) {
      const at = derived.search(LONE_SURROGATE);
      throw deriveFailed(
        name,
        row,
        `it returned text with a lone surrogate (\\u${derived.charCodeAt(at).toString(16)} at ${at}), which UTF-8 ` +
          'cannot hold: every format would write U+FFFD in its place',
      );
    }
    if (type.kind === 'json' && typeof derived === 'string' && !isJsonText(derived)) {
      const shown = JSON.stringify(derived.length > 60 ? `${derived.slice(0, 60)}…` : derived);
      throw deriveFailed(
        name,
        row,
        `it returned ${shown}, which is not JSON text (a json column holds JSON.stringify of a value), ` +
          "and the loaders' JSON reading of it would fail",
      );
    }
    return type.fromDerived === undefined ? derived : type.fromDerived(derived);
  };
  return {
    name,
    type,
    origin: 'derived',
    doc,
    dictionary: type.dictionary,
    // the source text of `value`: what a library pipeline's identity digests, not this wrapper's
    derive: Object.assign(derive, { toString: () => String(value) }),
  };
}

/** A UTF-16 code unit of a surrogate pair without its other half (in a `u` pattern, a pair is one code point). */
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether `text` is JSON text (what a json column holds: load.sql casts it to DuckDB's JSON). */
function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The error for a derived column's function that threw for `row`: its name, the row's id, the reason. */
function deriveFailed(name: string, row: Readonly<Row>, cause: unknown): LoadError {
  const reason = messageOf(cause);
  return LoadError.of(
    'LOAD_DERIVE_FAILED',
    `schema: derived column ${JSON.stringify(name)} failed for the record id ${String(row['id'])}: ${reason}`,
    cause,
  );
}
