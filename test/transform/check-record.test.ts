import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECORD_COLUMNS } from '../../src/schema/columns.js';
import { imageIssues } from '../../src/schema/image-schema.js';
import { isValidRecord } from '../../src/transform/check-record.js';
import { fixtureRecords as fixtures } from '../helpers/fixture-records.js';

const anyValue = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.string(),
  fc.constantFrom('2016-01-21T18:21:57.860138+01:00', '2016-01-21T18:21:57', '', 'None / Other', 2 ** 53, -1, 1.5),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }),
);

describe('isValidRecord', () => {
  it('accepts every real fixture record', () => {
    for (const record of fixtures) expect(isValidRecord(record)).toBe(true);
  });

  it.each([
    ['id missing', { ...fixtures[0], id: undefined }],
    ['id a string', { ...fixtures[0], id: '14225' }],
    ['id past 2^53', { ...fixtures[0], id: 2 ** 53 + 2 }],
    ['id negative', { ...fixtures[0], id: -5 }],
    ['file_size a string', { ...fixtures[0], file_size: '19605' }],
    ['is_valid a string', { ...fixtures[0], is_valid: 'true' }],
    ['add_date without offset', { ...fixtures[0], add_date: '2016-01-21T18:21:57.860138' }],
    ['name a number', { ...fixtures[0], name: 42 }],
    ['a float that JSON overflowed to Infinity', { ...fixtures[0], perc_bad_voxels: JSON.parse('1e400') as number }],
    ['a lone UTF-16 surrogate in a string', { ...fixtures[0], name: 'map \ud800' }],
    [
      'an unknown key nested 100,000 levels deep',
      { ...fixtures[0], CIAS: JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown },
    ],
    ['an array', [fixtures[0]]],
    ['null', null],
  ])('rejects a record with %s, and zod explains why', (_, record) => {
    expect(isValidRecord(record)).toBe(false);
    expect(imageIssues(record)?.length).toBeGreaterThan(0);
  });

  it('accepts an unknown key nested 64 levels deep', () => {
    const record = { ...fixtures[0], CIAS: JSON.parse('['.repeat(63) + '1' + ']'.repeat(63)) as unknown };
    expect(isValidRecord(record)).toBe(true);
    expect(imageIssues(record)).toBeUndefined();
  });

  it('agrees with the zod ImageSchema on mutated records (property)', () => {
    const names = RECORD_COLUMNS.map((c) => c.name);
    fc.assert(
      fc.property(
        fc.constantFrom(...fixtures),
        fc.array(fc.tuple(fc.constantFrom(...names, 'CIAS'), anyValue), { maxLength: 4 }),
        (base, edits) => {
          const record: Record<string, unknown> = { ...base };
          for (const [key, value] of edits) record[key] = value;
          expect(isValidRecord(record)).toBe(imageIssues(record) === undefined);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
