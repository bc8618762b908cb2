/**
 * Waiting for work run side by side: every promise settles before the caller goes on, so nothing still runs (and
 * writes) after a failure is thrown.
 */

/**
 * Resolves to every value once all `promises` settled; if any failed, throws a failure: the first that `root` accepts
 * (the cause rather than a sibling's echo of it), else the first.
 */
export async function settleAll<T>(
  promises: readonly Promise<T>[],
  root: (error: unknown) => boolean = () => true,
): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  if (failures.length > 0) throw failures.find(root) ?? failures[0];
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}
