/** What the bundled service serves under /media/: a file's size and any byte range of it, computed on the fly. */

/** A file the service can serve in whole or by range without holding it in memory. */
export interface ServedFile {
  /** Its size in bytes. */
  readonly size: number;
  /** Its Content-Type. */
  readonly contentType: string;
  /** Its bytes from `start` (inclusive) to `end` (exclusive), in chunks of at most 64 KiB. */
  read(start: number, end: number): Iterable<Buffer>;
}
