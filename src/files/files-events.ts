/** What a files run tells its caller while it runs (the CLI draws the progress bar from these). */
import type { FileRow } from './file-status.js';

/** The events of a files run. */
export type FilesEvent =
  /**
   * The selection is known: files and their listed bytes; how many of them are already on disk and verified is not
   * known yet.
   */
  | { type: 'plan'; files: number; bytes: number }
  /**
   * Bytes written to the `.part` of the file at `path` (as files.parquet gives it), which holds `held` bytes after
   * them (fewer than before when a download starts again from byte 0); `listedBytes` as in the `file` event.
   */
  | { type: 'bytes'; bytes: number; path: string; held: number; listedBytes: number }
  /** One file is settled: fetched, found on disk, or reported; `listedBytes` is what the plan counted for it. */
  | { type: 'file'; row: FileRow; fetched: boolean; listedBytes: number }
  /** A stale lock on the output folder (its run ended) was taken over: one line saying whose and why. */
  | { type: 'lock'; message: string }
  /** A value a condition asks of a category column that no image has, while one differs only in case: one line. */
  | { type: 'unmatched'; message: string }
  /** Something the caller should know that does not stop the run (a collection written in part): one line. */
  | { type: 'notice'; message: string }
  /** A request for a file failed and will be tried again. */
  | { type: 'retry'; url: string; attempt: number; delayMs: number; reason: string }
  /** A token was given, but the service (the snapshot's, not named by the caller) is not sent it: see token-host.ts. */
  | { type: 'token-withheld'; baseUrl: string };
