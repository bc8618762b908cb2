/** The end-of-run summary, as text and as `--summary json`, from a manifest. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatSummary, formatSummaryJson, proofLine, summaryDocument } from '../../../src/cli/printing/summary.js';
import type { IncrementalProof } from '../../../src/extract/completeness/completeness.js';
import type { Manifest } from '../../../src/run/publish/manifest.js';
import type { SnapshotResult } from '../../../src/run/run-snapshot.js';

const manifest: Manifest = {
  tool: 'img-etl 0.1.0',
  schema_version: '1',
  source_url: 'http://h/api/images/',
  started_at: '2025-03-01T10:00:00.000Z',
  kind: 'full',
  last_full_at: '2025-03-01T10:00:00.000Z',
  finished_at: '2025-03-01T10:00:12.500Z',
  runtime: { node: 'v20.20.2', flags: [] },
  complete: false,
  expected: 1002,
  received: 1000,
  missing: 2,
  count_at_start: 1001,
  count_at_end: 1002,
  passes: [
    { pass: 1, added: 998, duplicates: 1, count_min: 1001, count_max: 1002, clean: false },
    { pass: 2, added: 2, duplicates: 0, count_min: 1002, count_max: 1002, clean: true },
  ],
  completeness: {
    method: 'passes',
    images: { expected: 1002, received: 998, proven: false },
    collections: { status: 404, expected: 0, received: 0, passes: 0, complete: false, rounds: 1 },
    note:
      'GET http://h/api/collections/ returned 404: the service has no collection endpoints, ' +
      "so there is no collections table and completeness rests on the image list's count (2 passes)",
    reconciliation: { collections: 0, expected: 0, received: 0, added: 0, unserved: 0, missing: 2, removed: 0 },
    reconciled: [],
    unreadable: [],
  },
  requests: { images: 24, collections: 1, collection_images: 0, image: 0 },
  pages_fetched: 22,
  page_size: 100,
  retries: 3,
  skipped_offsets: [512],
  records_written: 999,
  duplicates_dropped: 1,
  conflicts: { count: 2, first_ids: [7, 9] },
  rejects: 1,
  normalisation: { sentinel_to_null: {}, empty_to_null: {}, records_with_extra: 0 },
  collections: { source_url: 'http://h/api/collections/', absent: 'http://h/api/collections/ answered 404: no table' },
  files: [
    { name: 'images.parquet', format: 'parquet', rows: 999, bytes: 123_456, sha256: 'a'.repeat(64) },
    { name: 'rejects.ndjson', format: 'rejects', rows: 1, bytes: 800, sha256: 'b'.repeat(64) },
  ],
};
const result: SnapshotResult = {
  manifest,
  manifestPath: join('snap', '20250301T100000Z', 'manifest.json'),
  dataDir: join('snap', '20250301T100000Z'),
  preview: [],
};
const pruned = [{ name: '20250201T100000Z', complete: true, reason: 'beyond the newest 1 complete' }];
const extras = { latest: { link: join('snap', 'latest'), target: '20250301T100000Z' }, pruned };

describe('summary', () => {
  it('as text: completeness, records, pages, time, each file with its size, the manifest, latest and pruned', () => {
    expect(formatSummary(result, extras)).toBe(
      [
        'img-etl: INCOMPLETE snapshot of http://h/api/images/',
        '  records   999 written, 1 rejected; the service counted 1001 at the start and 1002 ' +
          'at the end: 2 missing, 1 duplicate dropped',
        '  pages     22 pages of up to 100 records fetched in 2 passes, 3 retries, 12.5 s (80 records/s)',
        '  requests  25: 24 images, 1 collections, 0 collection_images, 0 image, 0.0250 per record',
        '  proof     GET http://h/api/collections/ returned 404: the service has no collection endpoints, ' +
          "so there is no collections table and completeness rests on the image list's count (2 passes)",
        '  changed   2 records came back changed while the list was paged (id 7, 9); ' +
          'the copy newer by modify_date is kept',
        '  skipped   records at offsets 512: the server could not serve them',
        `  parquet   ${join('snap', '20250301T100000Z', 'images.parquet')}  123.5 kB, 999 rows`,
        `  rejects   ${join('snap', '20250301T100000Z', 'rejects.ndjson')}  800 B, 1 row`,
        '  collections http://h/api/collections/ answered 404: no table',
        `  manifest  ${join('snap', '20250301T100000Z', 'manifest.json')}`,
        `  latest    ${join('snap', 'latest')} -> 20250301T100000Z`,
        '  pruned    20250201T100000Z (beyond the newest 1 complete)',
        '',
      ].join('\n'),
    );
  });

  it('as JSON: one document with records, files (name, path, bytes, rows, sha256), duration and completeness', () => {
    const text = formatSummaryJson(result, extras);
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual(summaryDocument(result, extras));
    expect(JSON.parse(text)).toEqual({
      complete: false,
      source_url: 'http://h/api/images/',
      started_at: '2025-03-01T10:00:00.000Z',
      finished_at: '2025-03-01T10:00:12.500Z',
      duration_seconds: 12.5,
      records: { written: 999, expected: 1002, received: 1000, missing: 2, duplicates_dropped: 1, rejects: 1 },
      pages: { fetched: 22, page_size: 100, passes: 2, retries: 3, skipped_offsets: [512] },
      collections: { absent: 'http://h/api/collections/ answered 404: no table' },
      requests: { images: 24, collections: 1, collection_images: 0, image: 0 },
      completeness: { method: 'passes', proof: manifest.completeness.note, unreadable: [] },
      files: [
        {
          name: 'images.parquet',
          path: join('snap', '20250301T100000Z', 'images.parquet'),
          format: 'parquet',
          rows: 999,
          bytes: 123_456,
          sha256: 'a'.repeat(64),
        },
        {
          name: 'rejects.ndjson',
          path: join('snap', '20250301T100000Z', 'rejects.ndjson'),
          format: 'rejects',
          rows: 1,
          bytes: 800,
          sha256: 'b'.repeat(64),
        },
      ],
      manifest: join('snap', '20250301T100000Z', 'manifest.json'),
      latest: { link: join('snap', 'latest'), target: '20250301T100000Z' },
      pruned,
    });
    // Without a snapshot folder there is no latest link, and nothing pruned.
    expect(summaryDocument(result)).not.toHaveProperty('latest');
    expect(summaryDocument(result)).not.toHaveProperty('pruned');
  });
});

describe('summary lines stay true at the edges', () => {
  const edge = (changes: Partial<Manifest>): string =>
    formatSummary({ ...result, manifest: { ...manifest, ...changes } });

  it('a list whose first page has no next: the page size is unknown and not printed as "of 0 records"', () => {
    const text = edge({ pages_fetched: 2, page_size: 0, passes: manifest.passes.slice(0, 1) });
    expect(text).toContain('  pages     2 pages fetched in 1 pass, 3 retries');
    expect(text).not.toMatch(/of 0 records/);
  });

  it('a count that moved during the run: both counts, never "100 written of 50 expected"', () => {
    const text = edge({
      complete: true,
      records_written: 100,
      received: 100,
      expected: 50,
      missing: 0,
      count_at_start: 100,
      count_at_end: 50,
      rejects: 0,
      duplicates_dropped: 0,
    });
    expect(text).toContain(
      '  records   100 written, 0 rejected; the service counted 100 at the start and 50 at ' +
        'the end: 0 missing, 0 duplicates dropped',
    );
    expect(text).not.toMatch(/written of \d+ expected/);
  });

  it('no conflict line when no record came back changed', () => {
    expect(edge({ conflicts: { count: 0, first_ids: [] } })).not.toContain('  changed   ');
  });

  it(
    'a reconciled run: the proof in one line, ' + 'and each collection that could not be read with what was left out',
    () => {
      const completeness: Manifest['completeness'] = {
        method: 'reconciliation',
        images: { expected: 1002, received: 990, proven: false },
        collections: { status: 200, expected: 40, received: 40, passes: 1, complete: true, rounds: 2 },
        reconciliation: {
          collections: 3,
          expected: 120,
          received: 120,
          added: 10,
          unserved: 0,
          missing: 0,
          removed: 0,
        },
        reconciled: [
          {
            id: 4,
            reason: 'short',
            number_of_images: 60,
            received_before: 52,
            status: 200,
            count: 60,
            received: 60,
            added: 8,
            removed: 0,
          },
          {
            id: 9,
            reason: 'changed',
            number_of_images: 60,
            received_before: 60,
            status: 200,
            count: 60,
            received: 60,
            added: 2,
            removed: 0,
          },
          {
            id: 12,
            reason: 'unlisted',
            number_of_images: null,
            received_before: 7,
            status: 403,
            count: 0,
            received: 0,
            added: 0,
            removed: 0,
          },
        ],
        unreadable: [{ id: 12, status: 403, dropped: 7 }],
      };
      const whole = { complete: true, expected: 1000, received: 1000, missing: 0 };
      const text = edge({ completeness, passes: manifest.passes.slice(0, 1), ...whole });
      expect(text).toContain(
        '  proof     one pass over the images, then 3 collections short, changed or unlisted, read in id order: ' +
          '+10 records, 0 missing; collections list 40 of 40, read before and after\n',
      );
      expect(text).toContain('  left out  collection 12 answered 403 (private now): 7 records of it left out\n');
    },
  );

  it("a reconciled run short of records: the proof gives the records line's missing, and which count says so", () => {
    const reconciled = (unserved: number, missing: number): string => {
      const completeness: Manifest['completeness'] = {
        method: 'reconciliation',
        images: { expected: 1002, received: 1000, proven: false },
        collections: { status: 200, expected: 40, received: 40, passes: 1, complete: true, rounds: 2 },
        reconciliation: {
          collections: 1,
          expected: 60,
          received: 60 - unserved,
          added: 0,
          unserved,
          missing,
          removed: 0,
        },
        reconciled: [],
        unreadable: [],
      };
      return edge({ completeness, passes: manifest.passes.slice(0, 1), missing });
    };
    expect(reconciled(0, 2)).toContain(
      '+0 records, 2 missing (the image list counts 1002 at the end, ' +
        'but the pass and the collections read account for 1000); collections list 40 of 40',
    );
    expect(reconciled(5, 5)).toContain(
      '+0 records, 5 missing (the collections read count 5 more than their own lists served); collections list',
    );
    expect(reconciled(0, 2)).not.toMatch(/(?<!\d)0 missing/);
  });
});

describe('an incremental run', () => {
  it('gives the rate of the records it read, not of the rows it carried over without a request', () => {
    // 1,000 rows held in 12.5 s, 900 of them carried over from the base: 100 read, 8 a second (not 80).
    const incremental: IncrementalProof = {
      base: '20250228T100000Z',
      carried_collections: 9,
      carried_records: 900,
      read_collections: 1,
      vanished_collections: 0,
      base_records: 990,
      count: 1000,
      base_missing: 0,
    };
    const text = formatSummary({
      ...result,
      manifest: {
        ...manifest,
        kind: 'incremental',
        expected: 1000,
        received: 1000,
        missing: 0,
        completeness: { ...manifest.completeness, method: 'reconciliation', incremental },
      },
    });
    const pages = text.split('\n').find((line) => line.startsWith('  pages     '));
    expect(pages).toBe(
      '  pages     no pass over the image list: built on 20250228T100000Z, 900 rows of 9 collections carried over, ' +
        '3 retries, 12.5 s (100 records read, 8 records/s)',
    );
  });

  it("gives the records it read in place of the base's rows of the collections read and gone", () => {
    const incremental: IncrementalProof = {
      ...{ base: '20250228T100000Z', carried_collections: 9, carried_records: 900, read_collections: 1 },
      ...{ vanished_collections: 1, base_records: 1010, count: 1000, base_missing: 0 },
    };
    const completeness = { ...manifest.completeness, method: 'incremental' as const, incremental };
    const m = { ...manifest, kind: 'incremental' as const, expected: 1000, received: 1000, missing: 0, completeness };
    expect(proofLine(m)).toContain(
      '1 collection new or changed, read in id order, 1 collection gone (100 records in place of the ' +
        "base's 110: -10), 9 carried over; the image list counts 1000, the rows held;",
    );
  });
});
