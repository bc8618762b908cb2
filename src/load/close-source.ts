/**
 * Releasing a source a sink will not read to the end, so that whatever feeds it (a tee, a pager) stops too.
 */

/** Tells `source` that nobody will read it: calls `return()` on its iterator; never throws. */
export async function closeSource(source: AsyncIterable<unknown>): Promise<void> {
  try {
    await source[Symbol.asyncIterator]().return?.();
  } catch {
    // The sink is already failing with its own error, which is the one worth reporting.
  }
}
