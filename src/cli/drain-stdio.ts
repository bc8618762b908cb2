/**
 * Waiting for stdout and stderr to hand everything written to the operating system. On POSIX a write to a pipe is
 * asynchronous: what a slow reader has not taken yet waits in the process, and `process.exit` would drop it.
 */

/** Resolves once everything written so far to stdout and stderr has left the process (or the stream has failed). */
export function drainStdio(): Promise<void> {
  return Promise.all([drained(process.stdout), drained(process.stderr)]).then(() => undefined);
}

function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableEnded) return Promise.resolve();
  // Writes complete in order, so the callback of an empty write runs after every earlier write has been flushed.
  return new Promise((resolve) => stream.write('', () => resolve()));
}
