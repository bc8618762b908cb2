/** The error of a bad command line: the CLI prints its one-line message and exits with code 2. */
import { oneLine } from '../text/one-line.js';

/** What a UsageError is made of. */
export interface UsageErrorOptions {
  /** What is wrong with the command line, naming the option and the bad value; made one line. */
  message: string;
  /** The error behind this one, when there is one. */
  cause?: unknown;
}

/** A bad command line (unknown option, invalid value): the CLI prints its one-line message and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';

  constructor({ message, cause }: UsageErrorOptions) {
    super(oneLine(message), cause === undefined ? undefined : { cause });
  }
}
