/**
 * The load stage's error: a plain Error with a stable `code`, a lowercase message prefixed `load:`, and a `cause`.
 * It stands below schema, whose column types refuse a value they do not hold with it (LOAD_INVALID_VALUE).
 */
import { CodedError, type CodedErrorOptions } from './coded-error.js';
import { messageOf } from './message-of.js';

/** Stable codes of the load stage's errors. */
export type LoadErrorCode =
  | 'LOAD_INVALID_OPTION' // an option is out of range
  | 'LOAD_INVALID_VALUE' // a row holds a value that does not fit its column's kind
  | 'LOAD_DERIVE_FAILED' // a derived column's function threw for a record
  | 'LOAD_STAGE_FAILED' // a pipeline's row stage threw
  | 'LOAD_NOT_OURS' // a file img-etl did not write is where it would write one
  | 'LOAD_WRITE_FAILED' // the file system refused a write, fsync, rename, remove or folder (outputs and staging alike)
  | 'LOAD_ENCODE_FAILED' // a format library failed or wrote something other than what it was given
  | 'LOAD_TEE_CONSUMER_STOPPED' // one consumer of a tee stopped early, so the others cannot go on
  | 'LOAD_SINK_STOPPED' // a user's sink resolved before reading the run's rows to the end
  | 'LOAD_SINK_FAILED'; // a user's sink failed with an error of its own (not the run's)

/** What a LoadError is made of; its message is prefixed by stage (`load:`, `staging:`). */
export type LoadErrorOptions = CodedErrorOptions<LoadErrorCode>;

/** An error of the load stage. */
export class LoadError extends CodedError<LoadErrorCode> {
  override readonly name = 'LoadError';
}

/** Wraps a format library's failure (anything but a LoadError, which passes through) as LOAD_ENCODE_FAILED. */
export function encodeFailed(what: string, cause: unknown): LoadError {
  if (cause instanceof LoadError) return cause;
  const detail = messageOf(cause);
  return LoadError.of('LOAD_ENCODE_FAILED', `load: ${what} failed: ${detail}`, cause);
}
