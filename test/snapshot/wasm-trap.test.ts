/**
 * untilTrap races each parquet-wasm read against a WebAssembly trap. A race against one promise that never settles
 * keeps every value it was ever raced with (the promise's reactions hold the race's result): reading a 500,000-row
 * snapshot then held 340 MB of record batches to the end. Each read must be let go once it settles. (A trap is
 * checked end to end, in a process of its own: test/report/drift-wasm-trap.e2e.test.ts; raised here it would leave
 * this process's reads refused.)
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { untilTrap, watchTraps } from '../../src/snapshot/wasm-trap.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('untilTrap', () => {
  it('lets go of what a read resolved to once it settled', async () => {
    const unwatch = watchTraps();
    const refs: WeakRef<object>[] = [];
    /** Reads a value through untilTrap and keeps only a weak reference to it. */
    const readOne = async () =>
      refs.push(new WeakRef(await untilTrap(() => Promise.resolve({ bytes: new Uint8Array(1 << 20) }))));
    try {
      for (let i = 0; i < 5; i++) await readOne();
      await readOne(); // the last value read may stay in this frame
    } finally {
      unwatch();
    }
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(refs.slice(0, 5).filter((r) => r.deref() !== undefined)).toHaveLength(0);
  });
});
