/**
 * The staging journal's lines are defined once, as a zod schema: each kind the run writes parses, and a line of any
 * other shape is refused, so that a resumed run trusts the journal up to the line before it and fetches the rest again.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Checkpoint } from '../../../src/extract/staging/checkpoint.js';
import { journalEntry, type JournalPage } from '../../../src/extract/staging/journal.js';
import { STAGING_FORMAT } from '../../../src/extract/staging/staging-identity.js';
import { removeDir, tempDir } from '../../helpers/readers.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

const identity = { source_url: 'http://x/api/images/', page_size: 2, started_at: new Date().toISOString() };
const request = { offset: 0, limit: 2, url: 'http://x/api/images/?limit=2&offset=0', count: 2, at_end: false };
const stamp = { checksum: 'sha256:00ff', bytes: 120 };
const records = { ...request, ids: [1, null], rejected: ['sha256:ab'], extra: [0] };

/** A line of each kind the run writes, as JSON.parse gives it back. */
const valid: Record<string, Record<string, unknown>> = {
  'a page of the image list without a body': { type: 'page', pass: 1, ...records, collections: [5, 2], file: null },
  'a page of the image list with its body and columns': {
    ...{ type: 'page', pass: 2, skipped: [3], ...records, replaced: [0], conflicts: [1], collections: [null, 2] },
    ...{ packages: [[5, 'http://x/nidm.zip']], file: 'p2-0-2.json', ...stamp, columns: stamp },
  },
  "a page of a collection's own list": {
    ...{ type: 'collection-page', collection: 5, attempt: 1, ...records },
    ...{ file: 'c5-a1-0-2.json', ...stamp },
  },
  'a page of the collections list': {
    ...{ type: 'collections-page', round: 1, pass: 1, ...request, ids: [5, null], sizes: [3, null] },
    ...{ modified: [2 ** 60, null], file: 'l1-1-0-2.json', ...stamp },
  },
  'the end of a pass': { type: 'pass-end', pass: 1 },
  'the end of the collections list': { type: 'collections-end', round: 1, passes: 1, status: 404 },
  "the end of a collection's reading": {
    ...{ type: 'collection-end', collection: 5, attempt: 2 },
    ...{ status: 200, count: 3, received: 3 },
  },
  'the base of an incremental run': { type: 'base', name: '2026-11-29T00-00-00Z', manifest_sha256: 'ab' },
  'the base of a full run': { type: 'base', name: null, why: '--full' },
  'the count a run holds its rows to': { type: 'count', count: 1259 },
};

const page = valid['a page of the image list with its body and columns']!;
const collections = valid['a page of the collections list']!;
const without = (line: Record<string, unknown>, key: string) =>
  Object.fromEntries(Object.entries(line).filter(([k]) => k !== key));

/** Lines that are not of a shape the run writes, each with what is wrong with it. */
const malformed: [string, unknown][] = [
  ['an unknown kind', { ...valid['the end of a pass'], type: 'pass-ended' }],
  ['not an object', [valid['the end of a pass']]],
  ['null', null],
  ['a number as text', { ...page, offset: '0' }],
  ['an id as text', { ...page, ids: ['1', null] }],
  ['at_end not a boolean', { ...page, at_end: 'no' }],
  ['a fraction', { ...page, limit: 2.5 }],
  ['a number past 2^53', { ...page, count: 2 ** 53 }],
  ['an id past 2^53', JSON.parse(JSON.stringify(page).replace('"ids":[1,', '"ids":[9007199254740993,')) as unknown],
  ['a huge number', { type: 'count', count: 1e300 }],
  [
    'a time that is no finite number (1e999 reads as Infinity)',
    JSON.parse(JSON.stringify(collections).replace('"modified":[', '"modified":[1e999,')) as unknown,
  ],
  ['ids nested a level deeper', { ...page, ids: [[1], null] }],
  ['a pass as an object', { type: 'pass-end', pass: { n: 1 } }],
  ["a columns' checksum as an object", { ...page, columns: { checksum: { sha256: '00' }, bytes: 1 } }],
  ['a package without its url', { ...page, packages: [[5]] }],
  ['no ids', without(page, 'ids')],
  ['no extra', without(page, 'extra')],
  ['no collections on a page of the image list', without(page, 'collections')],
  ['a body without its checksum', without(page, 'checksum')],
  ['a body without its size', without(page, 'bytes')],
  ['a page of the collections list without a body', { ...without(collections, 'checksum'), file: null }],
  ['a file in another folder', { ...page, file: '../p2-0-2.json' }],
  ['a file in a folder below', { ...page, file: 'x/p2-0-2.json' }],
  ['a dot file', { ...page, file: '.p2-0-2.json' }],
  ['a reject key for each id that is not null but one', { ...page, rejected: [] }],
  ['an incremental base without its manifest', { type: 'base', name: '2026-11-29T00-00-00Z' }],
  ['a full base without why', { type: 'base', name: null }],
  [
    'the end of a collection without what it received',
    without(valid["the end of a collection's reading"]!, 'received'),
  ],
];

describe('the schema of a journal line', () => {
  it.each(Object.entries(valid))('parses %s', (_, line) => {
    expect(journalEntry.safeParse(line).success).toBe(true);
  });

  it.each(malformed)('refuses a line with %s', (_, line) => {
    expect(journalEntry.safeParse(line).success).toBe(false);
  });
});

describe('a journal read back when a run resumes', () => {
  const body = '{"count":2,"next":null,"previous":null,"results":[{"id":1,"name":"one"},{"id":2,"name":"two"}]}';
  const unstaged = {
    type: 'page' as const,
    pass: 1,
    ...request,
    ids: [1, 2],
    rejected: [],
    extra: [],
    collections: [],
  };

  it('holds each kind of line the run writes, as it wrote it', async () => {
    const first = await Checkpoint.open(dir, identity);
    const written = [
      await first.addPage<JournalPage>(unstaged, body),
      await first.addPage<JournalPage>({ ...unstaged, offset: 2, at_end: true }, undefined),
    ];
    const markers = Object.values(valid).filter((l) => !String(l['type']).endsWith('page'));
    for (const line of markers) await first.mark(line as Parameters<Checkpoint['mark']>[0]);
    await first.close();
    const again = await Checkpoint.open(dir, identity);
    try {
      expect(again.notices).toEqual([]);
      expect(again.entries).toEqual([...written, ...markers]);
    } finally {
      await again.remove();
    }
  });

  it.each([
    ['text that is not JSON', '{"type":"pass-end","pass":'],
    ['a line of another shape', JSON.stringify({ type: 'pass-end', pass: '1' })],
  ])('trusts the lines before one of %s, and none from it on', async (_, bad) => {
    const first = await Checkpoint.open(dir, identity);
    const page = await first.addPage<JournalPage>(unstaged, undefined);
    await first.mark({ type: 'count', count: 3 });
    await first.close();
    const path = join(dir, 'journal.ndjson');
    const before = await readFile(path, 'utf8');
    await writeFile(path, before + bad + '\n' + JSON.stringify({ type: 'pass-end', pass: 1 }) + '\n');
    const again = await Checkpoint.open(dir, identity);
    try {
      expect(again.entries).toEqual([page, { type: 'count', count: 3 }]);
      expect(await readFile(path, 'utf8')).toBe(before); // rewritten: new lines do not follow the refused one
    } finally {
      await again.remove();
    }
  });
});

describe("a staging folder's run.json", () => {
  it.each([
    ['null', 'null'],
    ['an empty object', '{}'],
    ['a list', '[]'],
    ['its format as text', JSON.stringify({ ...identity, format: String(STAGING_FORMAT) })],
    ['no page size', JSON.stringify({ ...identity, page_size: undefined, format: STAGING_FORMAT })],
  ])(
    'holding %s is not an identity: the staging is started afresh, as for one that does not parse',
    async (_, text) => {
      await writeFile(join(dir, 'run.json'), text);
      await writeFile(join(dir, 'journal.ndjson'), JSON.stringify({ type: 'count', count: 3 }) + '\n');
      const checkpoint = await Checkpoint.open(dir, identity);
      try {
        expect(checkpoint.entries).toEqual([]);
        expect(checkpoint.notices).toEqual([]);
        const written = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8')) as unknown;
        expect(written).toEqual({ ...identity, format: STAGING_FORMAT });
      } finally {
        await checkpoint.remove();
      }
    },
  );

  it('of another staging format is discarded with a notice naming both formats', async () => {
    await writeFile(join(dir, 'run.json'), JSON.stringify({ ...identity, format: STAGING_FORMAT - 1 }));
    const checkpoint = await Checkpoint.open(dir, identity);
    try {
      expect(checkpoint.notices).toEqual([
        `staging: ${dir} was written by another version of img-etl (staging format ${STAGING_FORMAT - 1}, ` +
          `this one reads ${STAGING_FORMAT}); discarded it and started afresh`,
      ]);
    } finally {
      await checkpoint.remove();
    }
  });
});
