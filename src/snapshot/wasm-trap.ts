/**
 * parquet-wasm does its asynchronous work in microtasks of its own (a stream reads ahead between two reads too); a
 * Rust panic there (bytes it fails to reject cleanly) is a WebAssembly trap thrown where no caller can catch it: an
 * uncaught exception that ends the process with a stack trace, while the read it belonged to never settles. While a
 * Parquet file is open (`watchTraps`), such a trap is taken from the uncaught exceptions and becomes the rejection of
 * the reads that wait on it (`untilTrap`). A trap leaves the WebAssembly instance unusable (its next reads never
 * settle), so every read after one is refused at once.
 */

// Node has it; the TypeScript libraries this project compiles with do not declare it.
const RuntimeError = (globalThis as unknown as { WebAssembly: { RuntimeError: ErrorConstructor } }).WebAssembly
  .RuntimeError;
let trapped: Error | undefined;
/**
 * The reads waiting, each by how to reject it. Each read races a promise of its own, let go when it settles: racing one
 * promise that never settles would keep every value ever raced with it (its reactions hold each race's result).
 */
const waiting = new Set<(trap: Error) => void>();
let watchers = 0;

function onUncaught(error: unknown): void {
  if (isTrap(error)) {
    trapped ??= error;
    for (const reject of waiting) reject(error);
    waiting.clear();
    return;
  }
  if (process.listenerCount('uncaughtException') > 1) return; // another listener takes it
  // Not a trap, and no one else listens: Node's own handling, as if this listener had not been there.
  process.off('uncaughtException', onUncaught);
  setImmediate(() => {
    throw error;
  });
}

/** Takes WebAssembly traps from the uncaught exceptions until the function returned is called (once a file closes). */
export function watchTraps(): () => void {
  if (watchers++ === 0) process.on('uncaughtException', onUncaught);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--watchers === 0) process.off('uncaughtException', onUncaught);
  };
}

/**
 * Settles as `read` (a parquet-wasm call, made while a file is watched) does, or rejects with the WebAssembly trap
 * raised meanwhile; rejects at once after an earlier trap.
 */
export async function untilTrap<T>(read: () => T | Promise<T>): Promise<T> {
  if (trapped !== undefined) throw trapped;
  let reject: (trap: Error) => void = () => undefined;
  const trap = new Promise<never>((_, r) => (reject = r));
  trap.catch(() => undefined); // rejected for the race; the read may have settled first
  waiting.add(reject);
  try {
    return await Promise.race([read(), trap]);
  } catch (error) {
    if (isTrap(error)) trapped ??= error;
    throw error;
  } finally {
    waiting.delete(reject);
  }
}

/** Whether `error` is a WebAssembly trap (a RuntimeError: a Rust panic, say). */
export function isTrap(error: unknown): error is Error {
  return error instanceof RuntimeError;
}

/** Whether a WebAssembly trap happened in this process: parquet-wasm's objects are then left alone, not freed. */
export function hasTrapped(): boolean {
  return trapped !== undefined;
}
