/** How a command reaches its output and exit code: the process's in the program, its own in a test. */

/**
 * Where a command writes and how it sets its exit code. The program gives the process's stdout and stderr
 * (main.ts); anything else that runs the command line (a test) gives its own.
 */
export interface CommandIo {
  /** The summary, a plan, what a command wrote. */
  readonly stdout: NodeJS.WriteStream;
  /** Progress, warnings and the one-line error. */
  readonly stderr: NodeJS.WriteStream;
  /** Sets the exit code the command line resolves to. */
  setExitCode(code: number): void;
  /** The command line's arguments, to say where a refused value came from (option-source.ts); default none. */
  readonly argv?: readonly string[];
}

/** The streams of a run of the command line; by default the process's own. */
export type CliStreams = Pick<CommandIo, 'stdout' | 'stderr'>;
