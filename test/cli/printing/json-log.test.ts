/** `--log-format json` on its own: one parseable object per line with ts, level and event; errors too. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src/run/run-events.js';
import { ExtractError } from '../../../src/extract/paging/extract-error.js';
import { JsonLog } from '../../../src/cli/printing/json-log.js';

function fakeStream() {
  const chunks: string[] = [];
  return { stream: { write: (s: string) => (chunks.push(s), true) } as unknown as NodeJS.WritableStream, chunks };
}

const EVENTS: RunEvent[] = [
  { type: 'pass-start', pass: 1, maxPasses: 3, expected: 0, received: 0, missing: 0, pagesDone: 0, recordsDone: 0 },
  { type: 'page', url: 'http://h/api/images/?limit=100&offset=0', offset: 0, records: 100, count: 250 },
  { type: 'retry', url: 'http://h/api/images/?limit=100&offset=100', attempt: 1, delayMs: 250, reason: 'returned 502' },
  { type: 'skip', url: 'http://h/api/images/?limit=1&offset=150', offset: 150, reason: 'returned 500' },
  { type: 'pass-end', pass: 1, added: 249, duplicates: 0, expected: 250, received: 249, missing: 1, clean: true },
  { type: 'publish-start', records: 249, formats: ['parquet'] },
  { type: 'publish-progress', rows: 249, rejects: 0 },
  {
    type: 'publish-end',
    rows: 249,
    rejects: 0,
    files: [{ name: 'images.parquet', format: 'parquet', rows: 249, bytes: 1234 }],
  },
];

describe('JsonLog', () => {
  it(
    'writes each event as one JSON object on its own line: ts, level, event, then the ' + 'event fields in snake_case',
    () => {
      const { stream, chunks } = fakeStream();
      const log = new JsonLog(stream);
      for (const event of EVENTS) log.onEvent(event);
      log.finish();
      expect(chunks).toHaveLength(EVENTS.length);
      const lines = chunks.map((c) => {
        expect(c.endsWith('\n')).toBe(true);
        expect(c.slice(0, -1)).not.toContain('\n');
        return JSON.parse(c) as Record<string, unknown>;
      });
      for (const line of lines) {
        expect(Object.keys(line).slice(0, 3)).toEqual(['ts', 'level', 'event']);
        expect(line['ts']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      }
      expect(lines.map(({ ts: _ts, ...rest }) => rest)).toEqual([
        {
          level: 'info',
          event: 'pass-start',
          pass: 1,
          max_passes: 3,
          expected: 0,
          received: 0,
          missing: 0,
          pages_done: 0,
          records_done: 0,
        },
        {
          level: 'info',
          event: 'page',
          url: 'http://h/api/images/?limit=100&offset=0',
          offset: 0,
          records: 100,
          count: 250,
        },
        {
          level: 'warn',
          event: 'retry',
          url: 'http://h/api/images/?limit=100&offset=100',
          attempt: 1,
          delay_ms: 250,
          reason: 'returned 502',
        },
        {
          level: 'warn',
          event: 'skip',
          url: 'http://h/api/images/?limit=1&offset=150',
          offset: 150,
          reason: 'returned 500',
        },
        {
          level: 'info',
          event: 'pass-end',
          pass: 1,
          added: 249,
          duplicates: 0,
          expected: 250,
          received: 249,
          missing: 1,
          clean: true,
        },
        { level: 'info', event: 'publish-start', records: 249, formats: ['parquet'] },
        { level: 'info', event: 'publish-progress', rows: 249, rejects: 0 },
        {
          level: 'info',
          event: 'publish-end',
          rows: 249,
          rejects: 0,
          files: [{ name: 'images.parquet', format: 'parquet', rows: 249, bytes: 1234 }],
        },
      ]);
    },
  );

  it('names nested fields in snake_case too', () => {
    const { stream, chunks } = fakeStream();
    new JsonLog(stream).error('stopped', 'error', {
      exitCode: 1,
      lastPage: { pageSize: 100, retryAfterMs: [{ delayMs: 5 }] },
    });
    const { ts: _ts, ...line } = JSON.parse(chunks[0]!) as Record<string, unknown>;
    expect(line).toEqual({
      level: 'error',
      event: 'error',
      message: 'stopped',
      exit_code: 1,
      last_page: { page_size: 100, retry_after_ms: [{ delay_ms: 5 }] },
    });
  });

  it('writes an error that ends the command with the code and URL of the library error it wraps', () => {
    const { stream, chunks } = fakeStream();
    const log = new JsonLog(stream);
    const cause = new ExtractError({
      code: 'HTTP_STATUS',
      url: 'http://h/api/images/?limit=100&offset=0',
      reason: 'returned 404',
      retryable: false,
      status: 404,
    });
    log.exception(new Error(`${cause.message}; 3 pages are kept`, { cause }), 1);
    log.error('interrupted; 3 pages are kept', 'interrupted', { pages_kept: 3 });
    const [failed, interrupted] = chunks.map((c) => JSON.parse(c) as Record<string, unknown>);
    expect(failed).toEqual({
      ts: failed!['ts'],
      level: 'error',
      event: 'error',
      message: 'extract: GET http://h/api/images/?limit=100&offset=0 returned 404; 3 pages are kept',
      exit_code: 1,
      code: 'HTTP_STATUS',
      url: 'http://h/api/images/?limit=100&offset=0',
    });
    expect(interrupted).toEqual({
      ts: interrupted!['ts'],
      level: 'error',
      event: 'interrupted',
      message: 'interrupted; 3 pages are kept',
      pages_kept: 3,
    });
  });

  it('keeps errors only when quiet', () => {
    const { stream, chunks } = fakeStream();
    const log = new JsonLog(stream, true);
    for (const event of EVENTS) log.onEvent(event);
    expect(chunks).toEqual([]);
    log.exception(new Error('load: disk full'), 1);
    expect(JSON.parse(chunks[0]!)).toMatchObject({
      level: 'error',
      event: 'error',
      message: 'load: disk full',
      exit_code: 1,
    });
  });
});

/** One event of each type a run emits: the record's type names every one, so a new event must be added here. */
const ONE_OF_EACH: { [T in RunEvent['type']]: Extract<RunEvent, { type: T }> } = {
  page: { type: 'page', url: 'http://h/api/images/?limit=100&offset=0', offset: 0, records: 100, count: 250 },
  retry: { type: 'retry', url: 'http://h/api/images/', attempt: 1, delayMs: 250, reason: 'returned 502' },
  skip: { type: 'skip', url: 'http://h/api/images/?limit=1&offset=150', offset: 150, reason: 'returned 500' },
  'pass-start': {
    type: 'pass-start',
    pass: 1,
    maxPasses: 3,
    expected: 0,
    received: 0,
    missing: 0,
    pagesDone: 0,
    recordsDone: 0,
  },
  'pass-end': { type: 'pass-end', pass: 1, added: 1, duplicates: 0, expected: 1, received: 1, missing: 0, clean: true },
  'collections-start': { type: 'collections-start', url: 'http://h/api/collections/', round: 1, pagesDone: 0 },
  'collections-end': {
    type: 'collections-end',
    url: 'http://h/api/collections/',
    round: 1,
    status: 200,
    expected: 2,
    received: 2,
    passes: 1,
  },
  'reconcile-start': { type: 'reconcile-start', collections: 1, changed: 1, unlisted: 0, new: 0, doubt: 0, done: 0 },
  'collection-read': { type: 'collection-read', collection: 7, status: 200, count: 3, received: 3, added: 1 },
  'reconcile-end': {
    type: 'reconcile-end',
    collections: 1,
    added: 1,
    unserved: 0,
    expected: 3,
    received: 2,
    missing: 1,
    dropped: 0,
    removed: 1,
  },
  staging: { type: 'staging', message: 'discarded output/.img-etl-staging: too old' },
  leftover: {
    type: 'leftover',
    message:
      'snapshot: cannot prune snaps/.img-etl-pruning-20261101T000000.000Z/images.parquet: it is busy (EBUSY); ' +
      'snaps/.img-etl-pruning-20261101T000000.000Z stays, to be pruned again by the next --snapshot run',
  },
  conflicts: { type: 'conflicts', count: 1, firstIds: [7] },
  'run-kind': { type: 'run-kind', kind: 'full', why: 'there is no earlier snapshot in snaps to build on' },
  'publish-start': { type: 'publish-start', records: 1, formats: ['parquet'] },
  'publish-progress': { type: 'publish-progress', rows: 1, rejects: 0 },
  'publish-end': { type: 'publish-end', rows: 1, rejects: 0, files: [] },
};

/** docs/json-log.md's table of the snapshot's events: each event's name and the text of its fields cell. */
function documentedEvents(): Map<string, string> {
  const doc = readFileSync(new URL('../../../docs/json-log.md', import.meta.url), 'utf8');
  const table = doc.split("## The snapshot's JSON log")[1]!.split('\n## ')[0]!;
  const rows = table.split('\n').filter((line) => /^\| `[a-z-]+` \|/.test(line));
  return new Map(rows.map((line) => [/^\| `([a-z-]+)`/.exec(line)![1]!, line.split(' | ').slice(2).join(' | ')]));
}

describe('docs/json-log.md', () => {
  it('names every event a run writes to the JSON log, and each of its fields', () => {
    const documented = documentedEvents();
    const { stream, chunks } = fakeStream();
    const log = new JsonLog(stream);
    for (const event of Object.values(ONE_OF_EACH)) log.onEvent(event);
    const undocumented = chunks.flatMap((chunk) => {
      const { ts: _ts, level: _level, event, ...fields } = JSON.parse(chunk) as Record<string, unknown>;
      const cell = documented.get(String(event));
      if (cell === undefined) return [`event ${String(event)}`];
      return Object.keys(fields)
        .filter((field) => !cell.includes(`\`${field}\``))
        .map((field) => `${String(event)}.${field}`);
    });
    expect(undocumented).toEqual([]);
  });
});
