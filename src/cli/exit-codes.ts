/** The exit codes of the `img-etl` program, one per outcome. */

/** Process exit codes, documented in the README, and the one place an error that ends a command becomes one. */
import { UsageError } from './usage-error.js';

/** Process exit codes, documented in the README. */
export const EXIT = {
  /** The snapshot is complete. */
  OK: 0,
  /** The run failed: nothing was published (network, service, disk). */
  FAILED: 1,
  /** The command line was wrong. */
  USAGE: 2,
  /** The snapshot was published but lacks more records than --max-missing allows. */
  INCOMPLETE: 3,
  /** Interrupted (Ctrl-C); run the same command again to resume. */
  INTERRUPTED: 130,
} as const;

/** The library's codes for a path or a --where that names no snapshot or no condition: the command line's fault. */
const USAGE_CODES = new Set<unknown>(['DIFF_NOT_FOUND', 'DIFF_NOT_SNAPSHOT', 'FILES_BAD_WHERE', 'FILES_NOT_SNAPSHOT']);

/** The exit code of an error that ended a command: a bad command line is USAGE, anything else FAILED. */
export function exitCodeOf(err: unknown): number {
  const usage = err instanceof UsageError || USAGE_CODES.has((err as { code?: unknown } | null)?.code);
  return usage ? EXIT.USAGE : EXIT.FAILED;
}
