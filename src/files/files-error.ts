/**
 * The files stage's error: a stable `code`, a one-line lowercase message prefixed `files:` that names the path or
 * value at fault, and a `cause`. A file that cannot be fetched is not an error but a row of files.parquet.
 */
import { CodedError, type CodedErrorOptions } from '../text/coded-error.js';

/** Stable codes of the files stage's errors. */
export type FilesErrorCode =
  | 'FILES_BAD_WHERE' // a --where condition names no column, or a value the column cannot hold
  | 'FILES_NOT_SNAPSHOT' // the snapshot path names no snapshot
  | 'FILES_UNREADABLE' // the snapshot or an earlier files.parquet cannot be read
  | 'FILES_WRITE_FAILED' // the output folder or files.parquet cannot be written
  | 'FILES_LOCKED'; // another live files run holds the output folder

/** What a FilesError is made of; its message is prefixed `files:`. */
export type FilesErrorOptions = CodedErrorOptions<FilesErrorCode>;

/** An error that stops a files run. */
export class FilesError extends CodedError<FilesErrorCode> {
  override readonly name = 'FilesError';
}
