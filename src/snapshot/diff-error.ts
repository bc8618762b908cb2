/**
 * The diff stage's error: a plain Error with a stable `code`, a one-line lowercase message prefixed `diff:` that
 * names the path or value at fault, and a `cause`.
 */
import { CodedError, type CodedErrorOptions } from '../text/coded-error.js';

/** Stable codes of the diff stage's errors. */
export type DiffErrorCode =
  | 'DIFF_NOT_FOUND' // the path given for a snapshot does not exist
  | 'DIFF_NOT_SNAPSHOT' // the path exists but holds no images.parquet or images.arrow (or is another kind of file)
  | 'DIFF_UNREADABLE' // the data file exists but cannot be opened or decoded
  | 'DIFF_MISMATCH' // the data file differs from what the manifest beside it gives (size, sha256 or rows)
  | 'DIFF_BAD_ID' // the id column is missing, null, not an integer, or not in strictly ascending order
  | 'DIFF_UNSUPPORTED_TYPE' // a column has an Arrow type the comparison does not know
  | 'DIFF_INVALID_OPTION'; // an option is out of range

/** What a DiffError is made of; its message is prefixed `diff:`. */
export type DiffErrorOptions = CodedErrorOptions<DiffErrorCode>;

/** An error of the diff stage. */
export class DiffError extends CodedError<DiffErrorCode> {
  override readonly name = 'DiffError';
}
