/**
 * Runs in one process (a library user's, the tests' runCliHere) that take one folder's lock at the same moment: one
 * takes it. The lock names the process, so a run of it that came second judged the first's lock stale ("pid … is this
 * process") and took it over, while the first still ran.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { releaseRunLock, takeRunLock } from '../../../src/load/file-system/run-lock.js';

it('three runs of one process take one lock at once: one takes it, the others hear a run in it holds it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'img-etl-lock-'));
  try {
    const path = join(dir, '.lock');
    const results = await Promise.all([takeRunLock(path), takeRunLock(path), takeRunLock(path)]);
    expect(results.filter((r) => r.taken)).toEqual([{ taken: true }]);
    for (const r of results.filter((r) => !r.taken))
      expect(r).toEqual({ taken: false, holder: `pid ${process.pid}, a run in this process` });
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: process.pid });
    await releaseRunLock(path);
    // released: the next run takes it
    expect(await takeRunLock(path)).toEqual({ taken: true });
    await releaseRunLock(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
