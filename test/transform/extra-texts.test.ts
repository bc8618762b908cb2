import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IMAGES } from '../../src/schema/columns.js';
import { attachRecordText } from '../../src/schema/record-text.js';
import { RecordTexts } from '../../src/schema/record-texts.js';
import { generateRecordJson } from '../../src/service/records/generate-record.js';
import { checkRecord } from '../../src/transform/check-record.js';
import { extraJson } from '../../src/transform/extra-json.js';
import { attachExtraTexts, searchedExtraTexts } from '../../src/transform/extra-texts.js';
import { fixtureRecords } from '../helpers/fixture-records.js';

const KNOWN = IMAGES.knownKeys;

/** A page body around the records' texts, and its records as parsed. */
function page(
  texts: string[],
  envelope = '"count":1,"next":null,"previous":null',
): { bytes: Buffer; records: unknown[] } {
  const bytes = Buffer.from(`{${envelope},"results":[${texts.join(',')}]}`);
  return { bytes, records: (JSON.parse(bytes.toString('utf8')) as { results: unknown[] }).results };
}

/** The positions of the valid records with unknown keys. */
function extraPositions(records: readonly unknown[]): number[] {
  return records.flatMap((r, i) => (checkRecord(r) === 'valid-with-extra' ? [i] : []));
}

/** Each position's `extra` as the scan of the whole page gives it (the way that does not search). */
function scanned(bytes: Buffer, positions: readonly number[]): Map<number, string | null> {
  const texts = new RecordTexts(bytes);
  const records = (JSON.parse(bytes.toString('utf8')) as { results: Record<string, unknown>[] }).results;
  return new Map(
    positions.map((p) => {
      attachRecordText(records[p]!, texts.at(p));
      return [p, extraJson(records[p]!, KNOWN)];
    }),
  );
}

/** A real record with only known keys, as JSON text without its closing brace. */
const open = (id: number) =>
  JSON.stringify({ ...fixtureRecords.find((r) => r['id'] === 14225)!, id, data: undefined }).slice(0, -1);

describe('the extra texts of a page found by searching for its unknown keys', () => {
  it('equal the scan of the whole page for the bundled service’s pages, which it searches', () => {
    for (const [seed, base] of [
      [1, 5_000],
      [42, 1],
      [42, 5_000],
    ] as const) {
      const texts = Array.from({ length: 1_000 }, (_, i) => generateRecordJson(seed, base + i, 'http://x'));
      const { bytes, records } = page(texts);
      const positions = extraPositions(records);
      expect(positions.length).toBeGreaterThan(100);
      const found = searchedExtraTexts(bytes, records, positions, KNOWN);
      expect(found).toBeDefined();
      expect(found).toEqual(scanned(bytes, positions));
    }
  });

  it('searches a page whose records hold many distinct unknown keys, as a page of many collections does', () => {
    const texts = Array.from({ length: 60 }, (_, i) => `${open(i)},"key ${i % 30}":${i},"注記${i % 7}":"${i}"}`);
    const { bytes, records } = page(texts);
    const positions = extraPositions(records);
    const keys = positions.flatMap((p) => Object.keys(records[p] as object)).filter((key) => !KNOWN.has(key));
    expect(new Set(keys).size).toBe(37);
    const found = searchedExtraTexts(bytes, records, positions, KNOWN);
    expect(found).toBeDefined();
    expect(found).toEqual(scanned(bytes, positions));
  });

  it('keeps numbers, escapes and non-ASCII as served, in the order served, whatever the spaces around a colon', () => {
    const members = '"big" :12345678901234567890, "e": 1.0E5,"u":"\\u00e9 \\"q\\"","注記" : [1, {"a":-0}]';
    const texts = [`${open(1)},${members}}`, `${open(2)},"e":2}`, `${open(3)}}`];
    const { bytes, records } = page(texts);
    const found = searchedExtraTexts(bytes, records, [0, 1], KNOWN);
    expect(found?.get(0)).toBe('{"big":12345678901234567890,"e":1.0E5,"u":"\\u00e9 \\"q\\"","注記":[1, {"a":-0}]}');
    expect(found?.get(1)).toBe('{"e":2}');
  });

  it('is not misled by a key’s literal inside a string or a string equal to a key', () => {
    const texts = [
      `${open(1)},"notes":"notes","n2":"\\"notes\\":1"}`,
      `${open(2)},"name2":"\\\\","notes":[ "notes" ]}`,
      `${open(3)},"description2":"x\\\\\\"notes\\":2"}`,
    ];
    const { bytes, records } = page(texts);
    const positions = extraPositions(records);
    const found = searchedExtraTexts(bytes, records, positions, KNOWN);
    expect(found).toEqual(scanned(bytes, positions));
  });

  it('gives up (the page is scanned) where it cannot be sure which record a literal belongs to', () => {
    const cases: [string, string[], string?][] = [
      ['a key written with an escape elsewhere', [`${open(1)},"\\u006eotes":1.0}`, `${open(2)},"notes":1,"notes":1}`]],
      ['a key written twice', [`${open(1)},"notes":1}`, `${open(2)},"notes":1,"notes":2}`]],
      ['the key inside another value', [`${open(1)},"notes":1}`, `${open(2)},"x":{"notes":2},"notes":3}`]],
      ['the key in the envelope', [`${open(1)},"count":1}`]],
      ['the key in a result that is not a record', [`${open(1)},"notes":1}`, '[{"notes":2}]']],
      ['a key that may follow a string', [`${open(1)},",a":1}`]],
      ['a key with a character that needs an escape', [`${open(1)},"a\\nb":1}`]],
      [
        'more unknown keys than a search pays for',
        [`${open(1)},${Array.from({ length: 101 }, (_, i) => `"k${i}":${i}`).join(',')}}`],
      ],
    ];
    for (const [why, texts] of cases) {
      const { bytes, records } = page(texts);
      const positions = extraPositions(records);
      expect(positions.length, why).toBeGreaterThan(0);
      expect(searchedExtraTexts(bytes, records, positions, KNOWN), why).toBeUndefined();
    }
  });

  it('attaches what the scan gives where the search gives up, so that extra is as served either way', () => {
    const { bytes, records } = page([`${open(1)},"\\u006eotes":1.0}`, `${open(2)},"notes":1,"notes":1}`]);
    const positions = extraPositions(records);
    attachExtraTexts(bytes, records, positions, KNOWN);
    const extras = positions.map((p) => extraJson(records[p] as Record<string, unknown>, KNOWN));
    expect(extras).toEqual(['{"\\u006eotes":1.0}', '{"notes":1}']);
  });

  it('never differs from the scan, on pages of records with random unknown keys, values, spaces and repeats', () => {
    const keyChars = fc.constantFrom('n', 'o', 't', 'e', 's', '注', ' ', ',', '"', '\\', ':', '{');
    const key = fc.string({ unit: keyChars, minLength: 1, maxLength: 3 });
    const space = fc.constantFrom('', ' ', '\n ');
    const leaf = fc.oneof(
      fc.constantFrom('1.0', '-0', '1E5', '12345678901234567890', 'null', 'true', '"n"', '"\\"n\\":1"', '"注"'),
      key.map((k) => JSON.stringify(k)),
      key.map((k) => JSON.stringify(k).replace('n', '\\u006e')),
    );
    const value = fc.oneof(
      leaf,
      fc.tuple(key, leaf).map(([k, v]) => `{${JSON.stringify(k)}:${v}}`),
      fc.array(leaf, { maxLength: 2 }).map((vs) => `[${vs.join(',')}]`),
    );
    const member = fc
      .tuple(key, space, space, value, fc.boolean())
      .map(
        ([k, s1, s2, v, escaped]) =>
          `${escaped ? JSON.stringify(k).replace('n', '\\u006e') : JSON.stringify(k)}${s1}:${s2}${v}`,
      );
    const record = fc.tuple(fc.nat(1_000), fc.array(member, { maxLength: 4 }));
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 6 }), (drawn) => {
        const texts = drawn.map(([id, members]) => [`${open(id)}`, ...members].join(',') + '}');
        const { bytes, records } = page(texts);
        const positions = extraPositions(records);
        const found = searchedExtraTexts(bytes, records, positions, KNOWN);
        if (found !== undefined) expect(found).toEqual(scanned(bytes, positions));
      }),
      { numRuns: 2_000 },
    );
  });
});
