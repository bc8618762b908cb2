import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { open, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Checkpoint } from '../../../src/extract/staging/checkpoint.js';
import { type JournalCollectionsPage, type JournalPage, type Unstaged } from '../../../src/extract/staging/journal.js';
import { modifiedAt } from '../../../src/extract/staging/modified-at.js';
import { removeDir, tempDir } from '../../helpers/readers.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

const identity = { source_url: 'http://x/api/images/', page_size: 2, started_at: new Date().toISOString() };
const entry: Unstaged<JournalPage> = {
  type: 'page',
  pass: 1,
  offset: 0,
  limit: 2,
  url: 'http://x/api/images/?limit=2&offset=0',
  count: 2,
  ids: [1, 2],
  rejected: [],
  extra: [],
  collections: [],
  at_end: true,
};
const body = '{"count":2,"next":null,"previous":null,"results":[{"id":1,"name":"one"},{"id":2,"name":"two"}]}';

describe('a staged page changed on disk while the run uses it', () => {
  it('is refused when read back (CHANGED, naming the file); the next open drops it to be fetched again', async () => {
    const checkpoint = await Checkpoint.open(dir, identity);
    const page = await checkpoint.addPage<JournalPage>(entry, body);
    const path = join(dir, page.file!);
    expect((await checkpoint.readPage(page.file!)).records).toEqual([
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
    ]);
    await writeFile(path, body.replace('"one"', '"ONE"')); // still valid, the same length, the same ids
    await expect(checkpoint.readPage(page.file!)).rejects.toMatchObject({
      name: 'CheckpointError',
      code: 'CHANGED',
      message: `staging: ${path}: changed on disk since it was staged (its sha256 is not the journal's)`,
    });
    await checkpoint.close();
    const reopened = await Checkpoint.open(dir, identity);
    try {
      expect(reopened.entries).toEqual([]);
      expect(reopened.notices).toEqual([
        `staging: 1 staged page in ${dir} could not be read back (${page.file}: changed on disk since it was ` +
          "staged (its sha256 is not the journal's)); fetching it again",
      ]);
    } finally {
      await reopened.remove();
    }
  });
});

describe('a staged page replaced while the run uses it is refused before a byte of it is read', () => {
  const fifos: string[] = [];
  afterEach(async () => {
    // Without the check, a read of a FIFO waits for a writer: give it one (and EOF) so that a failing test ends.
    for (const fifo of fifos.splice(0)) {
      const writer = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
      await writer?.close();
    }
  });

  it.each([
    ['a symbolic link to /dev/zero', (path: string) => symlink('/dev/zero', path), 'is a symbolic link'],
    [
      'a FIFO',
      async (path: string) => {
        execFileSync('mkfifo', [path]);
        fifos.push(path);
      },
      'is not a regular file (a FIFO)',
    ],
    [
      'a larger regular file',
      (path: string) => writeFile(path, body.replace(/}$/, ' '.repeat(100) + '}')),
      `is ${body.length + 100} bytes; the journal says ${body.length}`,
    ],
  ])('by %s: readPage rejects with CHANGED and the reason; the next open drops it', async (_, replace, reason) => {
    const checkpoint = await Checkpoint.open(dir, identity);
    const page = await checkpoint.addPage<JournalPage>(entry, body);
    const path = join(dir, page.file!);
    await rm(path);
    await replace(path);
    await expect(checkpoint.readPage(page.file!)).rejects.toMatchObject({
      name: 'CheckpointError',
      code: 'CHANGED',
      message: `staging: ${path}: ${reason}`,
    });
    await checkpoint.close();
    const reopened = await Checkpoint.open(dir, identity);
    try {
      expect(reopened.entries).toEqual([]);
      expect(reopened.notices).toEqual([
        `staging: 1 staged page in ${dir} could not be read back (${page.file}: ${reason}); fetching it again`,
      ]);
    } finally {
      await reopened.remove();
    }
  });
});

describe('a staging folder this process holds', () => {
  it('is refused to a second run in the same process (LOCKED), and taken once the first closes it', async () => {
    const staging = join(dir, 'staging');
    const first = await Checkpoint.open(staging, identity);
    await first.addPage<JournalPage>(entry, body);
    const second = await Checkpoint.open(staging, identity).then(
      async (checkpoint) => {
        await checkpoint.close();
        return 'opened';
      },
      (err: unknown) => (err as { code?: string }).code,
    );
    expect(second).toBe('LOCKED');
    // the same folder by another name: a link to it
    await symlink(staging, join(dir, 'link'));
    const linked = await Checkpoint.open(join(dir, 'link'), identity).then(
      async (checkpoint) => {
        await checkpoint.close();
        return 'opened';
      },
      (err: unknown) => (err as { code?: string }).code,
    );
    expect(linked).toBe('LOCKED');
    await first.close();
    const third = await Checkpoint.open(staging, identity);
    expect(third.notices).toEqual([]);
    expect(third.pagesKept).toBe(1);
    await third.remove();
  });
});

describe('a journal line of the collections list', () => {
  it('with a modify_date far from now (microseconds past 2^53) is read back: the pages after it are kept', async () => {
    const staging = join(dir, 'staging');
    const first = await Checkpoint.open(staging, identity);
    const collection = { id: 7, number_of_images: 1, modify_date: '0001-01-01T00:00:00Z' };
    const listed = JSON.stringify({ count: 1, next: null, previous: null, results: [collection] });
    const modified = modifiedAt(collection);
    expect(Number.isSafeInteger(modified)).toBe(false); // guards the test
    await first.addPage<JournalCollectionsPage>(
      {
        type: 'collections-page',
        round: 1,
        pass: 1,
        offset: 0,
        limit: 2,
        url: 'http://x/api/collections/?limit=2&offset=0',
        count: 1,
        ids: [7],
        sizes: [1],
        modified: [modified],
        at_end: true,
      },
      listed,
    );
    await first.addPage<JournalPage>(entry, body);
    await first.close();
    const again = await Checkpoint.open(staging, identity);
    expect(again.pagesKept).toBe(2);
    expect(again.entries[0]).toMatchObject({ type: 'collections-page', modified: [modified] });
    await again.remove();
  });
});
