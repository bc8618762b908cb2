/** The exit codes of the `img-etl` program, one per outcome. */

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
