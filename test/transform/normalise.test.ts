import { describe, expect, it } from 'vitest';
import { COLUMNS } from '../../src/schema/columns.js';
import { emptyNormalisationCounts } from '../../src/schema/normalisation-counts.js';
import { normaliseRecord } from '../../src/transform/normalise.js';
import { fixtureById as byId, fixtureRecords as fixtures } from '../helpers/fixture-records.js';

describe('normaliseRecord', () => {
  it('gives every column a value, in COLUMNS order', () => {
    const row = normaliseRecord(fixtures[0]!, emptyNormalisationCounts());
    expect(Object.keys(row)).toEqual(COLUMNS.map((c) => c.name));
  });

  it('turns the "None / Other" / "None" pair into nulls and sets the flag', () => {
    const record = fixtures.find((r) => r['cognitive_paradigm_cogatlas'] === 'None / Other')!;
    const counts = emptyNormalisationCounts();
    const row = normaliseRecord(record, counts);
    expect(row['cognitive_paradigm_cogatlas']).toBeNull();
    expect(row['cognitive_paradigm_cogatlas_id']).toBeNull();
    expect(row['cognitive_paradigm_is_other']).toBe(true);
    expect(counts.sentinelToNull['cognitive_paradigm_cogatlas']).toBe(1);
    expect(counts.sentinelToNull['cognitive_paradigm_cogatlas_id']).toBe(1);
  });

  it('keeps "None / Other" in cognitive_paradigm_name, free text, as served', () => {
    const record = { ...fixtures.find((r) => r['cognitive_paradigm_cogatlas'] === 'None / Other')! };
    record['cognitive_paradigm_name'] = 'None / Other'; // the bundled service copies the atlas name there
    const counts = emptyNormalisationCounts();
    const row = normaliseRecord(record, counts);
    expect(row['cognitive_paradigm_name']).toBe('None / Other');
    expect(row['cognitive_paradigm_cogatlas']).toBeNull();
    expect(counts.sentinelToNull['cognitive_paradigm_name']).toBeUndefined();
  });

  it('keeps a real paradigm and sets the flag false', () => {
    const record = fixtures.find((r) => r['cognitive_paradigm_cogatlas'] === 'rest eyes closed')!;
    const row = normaliseRecord(record, emptyNormalisationCounts());
    expect(row['cognitive_paradigm_cogatlas']).toBe('rest eyes closed');
    expect(row['cognitive_paradigm_cogatlas_id']).toBe('trm_54e69c642d89b');
    expect(row['cognitive_paradigm_is_other']).toBe(false);
  });

  it('does not treat "null hypothesis" or "None of the above" as missing', () => {
    const record = {
      ...fixtures[0]!,
      map_type: 'P map (given null hypothesis)',
      description: 'None of the above',
      name: 'null',
    };
    const row = normaliseRecord(record, emptyNormalisationCounts());
    expect(row['map_type']).toBe('P map (given null hypothesis)');
    expect(row['description']).toBe('None of the above');
    expect(row['name']).toBe('null');
  });

  it('turns empty strings into null and counts them per column', () => {
    const counts = emptyNormalisationCounts();
    const row = normaliseRecord({ ...fixtures[0]!, modality: '', figure: '', description: '' }, counts);
    expect([row['modality'], row['figure'], row['description']]).toEqual([null, null, null]);
    expect(counts.emptyToNull).toMatchObject({ modality: 1, figure: 1, description: 1 });
  });

  it('converts timestamps to UTC microseconds', () => {
    const row = normaliseRecord(byId(14225), emptyNormalisationCounts());
    expect(row['add_date']).toBe(BigInt(Date.UTC(2016, 0, 21, 17, 21, 57)) * 1000n + 860138n);
    expect(row['modify_date']).toBe(BigInt(Date.UTC(2018, 5, 30, 4, 7, 1)) * 1000n + 316444n);
  });

  it('keeps unknown keys in extra with their own types', () => {
    const withCias = fixtures.filter((r) => 'CIAS' in r);
    const rows = withCias.map((r) => normaliseRecord(r, emptyNormalisationCounts()));
    const extras = rows.map((r) => JSON.parse(r['extra'] as string) as Record<string, unknown>);
    expect(extras.some((e) => e['CIAS'] === '')).toBe(true);
    expect(extras.some((e) => typeof e['CIAS'] === 'number')).toBe(true);
    expect(extras.every((e) => 'type' in e)).toBe(true);
  });

  it('keeps an atlas: its own column, nested data in extra, absent fields and flags null', () => {
    const row = normaliseRecord(byId(14228), emptyNormalisationCounts());
    expect(row['image_type']).toBe('atlas');
    expect(row['label_description_file']).toBe(
      'http://neurovault.org/media/images/1056/Thalamus-maxprob-thr25-2mm.xml',
    );
    expect(JSON.parse(row['extra'] as string)).toEqual({ data: {} });
    expect(row['map_type']).toBeNull();
    expect(row['is_thresholded']).toBeNull();
    expect(row['cognitive_paradigm_is_other']).toBeNull();
  });

  it('leaves extra null for a record with only known keys', () => {
    expect(normaliseRecord(fixtures[0]!, emptyNormalisationCounts())['extra']).toBeNull();
  });
});
