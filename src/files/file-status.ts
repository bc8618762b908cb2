/** What became of one file of a files run, as files.parquet records it. */

/** `ok`: on disk and verified; `missing_on_server`: `file_size` 0 or a 404; `size_mismatch`: the server's length is
 * not `file_size`; `corrupt`: not exactly one complete gzip member or no NIfTI header; `failed`: could not be
 * fetched. */
export type FileStatus = 'ok' | 'missing_on_server' | 'size_mismatch' | 'corrupt' | 'failed';

/** Every status, in the order summaries list them. */
export const FILE_STATUSES: readonly FileStatus[] = ['ok', 'missing_on_server', 'size_mismatch', 'corrupt', 'failed'];

/** One row of files.parquet. */
export interface FileRow {
  /** The image's id. */
  id: number;
  /** Its collection. */
  collection_id: number | null;
  /** Which link: `file`, or `thumbnail`, `surface_left_file`, `surface_right_file`, `reduced_representation`. */
  link: string;
  /** The URL as listed. */
  url: string | null;
  /** Where the file is (or would be) on disk, relative to the output folder (`--out`). */
  path: string | null;
  /** Its size on disk when `ok`. */
  bytes: number | null;
  /** Its SHA-256 when `ok`. */
  sha256: string | null;
  /** Its modification time when `ok`, nanoseconds since 1970: a rerun re-hashes the file when it is another. */
  mtime_ns: bigint | null;
  /** What became of it. */
  status: FileStatus;
  /** Why it is not `ok`, one line; null when it is. */
  reason: string | null;
}
