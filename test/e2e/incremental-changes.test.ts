/**
 * Issue 25, item 5: every kind of change between runs the bundled service models (a record edited, deleted and
 * inserted, a collection made private, one made public again, one deleted, a new one), made through
 * `RunningService.change`; then an incremental `--snapshot` run and a `--full` run write the same data files, byte for
 * byte, in every format. Real CLI, the bundled service over loopback HTTP.
 */
import { describe, expect, it } from 'vitest';
import {
  expectExact,
  expectSameDataFiles,
  incrementalFixture,
  manifestOf,
  snapshot,
} from '../helpers/incremental-snapshots.js';

const { serve, newDir } = incrementalFixture();

describe('changes between runs', () => {
  it('an incremental run after every kind of change writes the bytes of a full run', async () => {
    const s = await serve(1500, 71);
    const [base, full] = [await newDir(), await newDir()];
    expect((await snapshot(s, base)).code).toBe(0);
    s.change({ kind: 'private', collections: 2, seed: 1 });
    expect((await snapshot(s, base)).code).toBe(0);
    for (const [kind, seed] of [
      ['edit', 2],
      ['delete', 3],
      ['insert', 4],
      ['private', 5],
      ['public', 6],
      ['delete-collection', 7],
      ['new-collection', 8],
    ] as const) {
      s.change({ kind, collections: 1, seed });
    }
    const run = await snapshot(s, base);
    expect(run.code).toBe(0);
    expect(await manifestOf(base)).toMatchObject({ kind: 'incremental', complete: true, rejects: 2 });
    await expectExact(s, base);
    expect((await snapshot(s, full, '--full')).code).toBe(0);
    await expectSameDataFiles(base, full);
  });
});
