/**
 * The collections table's definition against the facts about the real service (test/fixtures): one column per served
 * key, in served order, of the column type the key's JSON type calls for, then `extra`.
 */
import { describe, expect, it } from 'vitest';
import { COLLECTIONS } from '../../src/schema/collection-columns.js';
import { COLLECTION_FIELDS } from '../helpers/expected-collection-row.js';

const KINDS: Record<string, string[]> = {
  integer: ['int64'],
  number: ['float64'],
  boolean: ['boolean'],
  datetime: ['timestamp'],
  string: ['string', 'category'],
  'integer[]': ['json'],
};

describe('COLLECTIONS', () => {
  it('has the 107 served keys in served order, then extra', () => {
    expect(COLLECTIONS.names).toEqual([...COLLECTION_FIELDS.map((f) => f.key), 'extra']);
    expect(COLLECTIONS.recordColumns).toHaveLength(107);
  });

  it('gives each key the column type of its JSON type; only id is required, and never negative', () => {
    for (const field of COLLECTION_FIELDS) {
      const column = COLLECTIONS.recordColumnByName.get(field.key)!;
      expect(KINDS[field.type], field.key).toContain(column.type.kind);
      expect(column.required === true, field.key).toBe(field.key === 'id');
    }
    expect(COLLECTIONS.recordColumnByName.get('id')!.type.accepts(-1)).toBe(false);
    const communities = COLLECTIONS.recordColumnByName.get('communities')!.type;
    expect([[], [1, 2], [1.5], ['1'], 1].map((v) => communities.accepts(v))).toEqual([true, true, false, false, false]);
  });
});
