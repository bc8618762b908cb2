/** The error of a bad command line: the CLI prints its one-line message and exits with code 2. */
import { oneLine } from '../text/one-line.js';

/** A bad command line (unknown option, invalid value): the CLI prints its one-line message and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';

  /** `message` says what is wrong with the command line, naming the option and the bad value; made one line. */
  constructor(message: string, cause?: unknown) {
    super(oneLine(message), cause === undefined ? undefined : { cause });
  }
}
