/**
 * The diff stage's error: a plain Error with a stable `code`, a one-line lowercase message prefixed `diff:` that
 * names the path or value at fault, and a `cause`.
 */

import { oneLine } from '../text/one-line.js';

/** Stable codes of the diff stage's errors. */
export type DiffErrorCode =
  | 'DIFF_NOT_FOUND' // the path given for a snapshot does not exist
  | 'DIFF_NOT_SNAPSHOT' // the path exists but holds no images.parquet or images.arrow (or is another kind of file)
  | 'DIFF_UNREADABLE' // the data file exists but cannot be opened or decoded
  | 'DIFF_BAD_ID' // the id column is missing, null, not an integer, or not in strictly ascending order
  | 'DIFF_UNSUPPORTED_TYPE' // a column has an Arrow type the comparison does not know
  | 'DIFF_INVALID_OPTION'; // an option is out of range

/** What a DiffError is made of. */
export interface DiffErrorOptions {
  /** Stable machine-readable code. */
  code: DiffErrorCode;
  /** Lowercase, prefixed `diff:`, naming the path or value at fault; made one line. */
  message: string;
  /** The error behind this one, when there is one. */
  cause?: unknown;
}

/** An error of the diff stage. */
export class DiffError extends Error {
  override readonly name = 'DiffError';
  /** Stable machine-readable code. */
  readonly code: DiffErrorCode;

  constructor({ code, message, cause }: DiffErrorOptions) {
    super(oneLine(message), cause === undefined ? undefined : { cause });
    this.code = code;
  }
}
