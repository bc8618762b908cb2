/** A bad command line (unknown option, invalid value): the CLI prints its one-line message and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
