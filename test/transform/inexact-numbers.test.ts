import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IMAGES } from '../../src/schema/columns.js';
import { inexactNumberIssues, mayHoldInexactNumbers } from '../../src/transform/inexact-numbers.js';

/** The issues' keys of a record text, and whether a page of it is searched (the search must never miss one). */
function check(record: string): string[] {
  const keys = inexactNumberIssues(record, IMAGES).map((i) => i.path.join('.'));
  const page = `{"count":1,"next":null,"previous":null,"results":[${record}]}`;
  if (keys.length > 0) expect(mayHoldInexactNumbers(Buffer.from(page), page, IMAGES)).toBe(true);
  return keys;
}

describe('inexactNumberIssues', () => {
  it('names an int64 member whose text is not an integer, and a float64 one that is not zero but parses to 0', () => {
    const cases: [string, string[]][] = [
      ['{"id":1,"file_size":1e-400}', ['file_size']],
      ['{"id":1,"file_size" : 9007199254740990.5}', ['file_size']],
      ['{"id":1,"number_of_subjects":1.00000000000000001}', ['number_of_subjects']],
      ['{"id":1,"number_of_subjects":25E-1}', ['number_of_subjects']],
      ['{"id":1,"age":1e-400,"BMI":-0.0000e-999}', ['age']],
      [`{"id":1,"age":0.${'0'.repeat(224)}2e-99,"BMI":0.${'0'.repeat(223)}1e-99}`, ['age']],
      [`{"id":1,"age":0.${'0'.repeat(400)}1}`, ['age']],
      ['{"id":1,"\\u0061ge":5e-324,"f\\u0069le_size":0.5e1}', []],
      ['{"id":1,"f\\u0069le_size":2.5}', ['file_size']],
      ['{"id":1.0,"file_size":1E3,"number_of_subjects":-0,"collection_id":120e-1,"age":0.1}', []],
      ['{"id":1,"name":"1e-400","extra_key":1e-400,"file_size":null}', []],
    ];
    for (const [record, keys] of cases) expect([record, check(record)]).toEqual([record, keys]);
  });

  it('agrees with the value for any integer written with a fraction or exponent', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e6, max: 1e6 }), fc.nat(5), fc.integer({ min: -8, max: 8 }), (n, zeros, e) => {
        // n × 10^-e written as digits of n with e shifted into the exponent: an integer exactly when 10^e divides n
        const text = `${n}${'.'.padEnd(zeros + 1, '0').replace(/^\.$/, '')}e${-e}`;
        const exact = e <= 0 || n % 10 ** e === 0;
        expect(check(`{"id":1,"file_size":${text}}`)).toEqual(exact ? [] : ['file_size']);
      }),
    );
  });
});

describe('the library stage validate', () => {
  it('rejects a record whose number its text says otherwise than its value, as the snapshot does', async () => {
    const { validatePage } = await import('../../src/transform/validate.js');
    const { fixtureRecords } = await import('../helpers/fixture-records.js');
    const open = (id: number) => JSON.stringify({ ...fixtureRecords[0], id, file_size: undefined }).slice(0, -1);
    const texts = [`${open(1)},"file_size":9007199254740990.5}`, `${open(2)},"file_size":1E3}`];
    const body = Buffer.from(`{"count":2,"next":null,"previous":null,"results":[${texts.join(',')}]}`);
    const records = (JSON.parse(body.toString()) as { results: unknown[] }).results;
    const page = { source: { url: 'http://x/api/images/', offset: 0 }, count: 2, records, body };
    const valid = validatePage(page);
    expect(valid.records.map((r) => r['id'])).toEqual([2]);
    expect(valid.rejects.map((r) => [r.text, r.issues.map((i) => i.path.join('.'))])).toEqual([
      [texts[0], ['file_size']],
    ]);
  });
});
