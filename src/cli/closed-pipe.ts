/**
 * A reader that stops reading (`img-etl … | head -1`) closes its end of the pipe, and the next write to it fails with
 * EPIPE, which Node throws as an unhandled 'error' event: a stack trace and exit code 1 after the run did its work.
 */

/**
 * Drops what is written to `streams` once their reader has gone: the reader wanted no more, and the exit code stays
 * the run's. Any other error of a stream is thrown as before.
 */
export function ignoreClosedPipes(...streams: NodeJS.WriteStream[]): void {
  for (const stream of streams)
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
}
