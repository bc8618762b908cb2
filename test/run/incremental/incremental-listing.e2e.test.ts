/**
 * A collection the second read of the collections list no longer shows is not taken as gone on that read's
 * word. A collection deleted and another created between two of its pages leave the list's `count` as it was, so the
 * read is not begun again, and the deleted one's going shifts the next behind the read: the read names the deleted
 * collection and not the live one. Real CLI, the bundled service over loopback HTTP.
 */
import { describe, expect, it } from 'vitest';
import {
  expectExact,
  expectSameDataFiles,
  incrementalFixture,
  manifestOf,
  raceTheSecondRead,
} from '../../helpers/incremental-snapshots.js';
import { runCliHere } from '../../helpers/run-cli.js';

const { serve, newDir } = incrementalFixture();

describe('a collection deleted and another created while the second read of the collections list pages it', () => {
  it('the live collection shifted behind the read is not dropped, nor the deleted one carried over', async () => {
    // Deleted once the second read has asked for its first page, with a new collection created at the same time, 3's
    // going shifts 7 back onto that page, behind the read, and the list's count stays: the read names 3 and not 7.
    const s = await serve(400, 74);
    const base = await newDir();
    const { run, args } = await raceTheSecondRead(s, base, (gone) => {
      s.dataset.deleteCollection(gone);
      s.change({ kind: 'new-collection', collections: 1, seed: 5 });
    });
    expect(run.code, run.stderr).toBe(0);
    // Collection 7 left the second read, yet its own list serves it: not dropped on that read's word.
    expect(run.stderr).toContain('img-etl: a full pass: the second read of the collections list left out collections');
    expect(await manifestOf(base)).toMatchObject({ kind: 'full' });
    await expectExact(s, base);
    const full = await newDir();
    const fullArgs = args.map((a) => (a === base ? full : a));
    expect((await runCliHere([...fullArgs, '--full'])).code).toBe(0);
    await expectSameDataFiles(base, full);
    expect((await manifestOf(base)).complete).toBe(true);
  });
});
