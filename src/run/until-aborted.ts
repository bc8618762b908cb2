/**
 * Where a run heeds its AbortSignal once its records are fetched: between the batches that every table's writers and
 * taps read (writeOutputs), and before the manifest's commit (run-snapshot.ts). Node handles a signal (Ctrl-C,
 * SIGTERM) only on a turn of the event loop, which work on batches chained by promises need not give: each of these
 * points gives the loop a turn first, so that a signal sent while a batch is written stops the run before the next.
 */
import { setImmediate as loopTurn } from 'node:timers/promises';

/** Once the event loop has turned, throws the signal's reason if it was aborted. */
export async function stopIfAborted(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return;
  await loopTurn();
  signal.throwIfAborted();
}

/** `batches`, each handed on after stopIfAborted; `batches` as they are without a signal. */
export function untilAborted<T>(batches: AsyncIterable<T>, signal: AbortSignal | undefined): AsyncIterable<T> {
  if (signal === undefined) return batches;
  return (async function* () {
    for await (const batch of batches) {
      await stopIfAborted(signal);
      yield batch;
    }
  })();
}
