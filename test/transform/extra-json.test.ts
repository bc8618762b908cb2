import { describe, expect, it } from 'vitest';
import { attachRecordText } from '../../src/schema/record-text.js';
import type { PageBatch } from '../../src/schema/row.js';
import { emptyNormalisationCounts } from '../../src/schema/normalisation-counts.js';
import { normaliseRecords } from '../../src/transform/normalise.js';
import { validatePage } from '../../src/transform/validate.js';
import { fixtureRecords } from '../helpers/fixture-records.js';

/** A real record with only known keys, as JSON text without its closing brace (unknown members are appended). */
const open = JSON.stringify({ ...fixtureRecords.find((r) => r['id'] === 14225)!, data: undefined }).slice(0, -1);

/** The `extra` of the record served as `text`, the text attached to it. */
function extraOf(text: string): unknown {
  const record = JSON.parse(text) as Record<string, unknown>;
  attachRecordText(record, text);
  return normaliseRecords([record], emptyNormalisationCounts())[0]!['extra'];
}

describe('extra', () => {
  it('holds each unknown member as served when the record carries its text', () => {
    const members =
      '"big":12345678901234567890,"huge":1e400,"z":-0,"one":1.0,"e":1E5,"u":"\\u00e9","__proto__":{"a":[1, 2]},"2":0';
    expect(extraOf(`${open},${members}}`)).toBe(`{${members}}`);
  });

  it('keeps a repeated unknown key once, with the value served last (what JSON.parse keeps), at its last place', () => {
    expect(extraOf(`${open},"k":1,"m":2,"\\u006b":[3]}`)).toBe('{"m":2,"\\u006b":[3]}');
  });

  it('finds unknown keys anywhere in the record, keys written with escapes too', () => {
    const text = `{"CIAS" : 1.0 , ${open.slice(1)},"s":"a\\"b","\\u0043IAS2":-0}`;
    expect(extraOf(text)).toBe('{"CIAS":1.0,"s":"a\\"b","\\u0043IAS2":-0}');
  });

  it('keeps a "__proto__" key of a record without its text, re-serialising the parsed values', () => {
    const record = JSON.parse(`${open},"__proto__":{"a":1},"b":12345678901234567890}`) as Record<string, unknown>;
    const [row] = normaliseRecords([record], emptyNormalisationCounts());
    expect(row!['extra']).toBe('{"__proto__":{"a":1},"b":12345678901234567000}');
  });

  it('is exact through validate and normalise when the page has its body (library path), rejects too', () => {
    const reject = '{"id": 12345678901234567891, "CIAS": 1e400}';
    const texts = [`${open},"CIAS":47.0}`, reject, `${open.replace('14225', '14226')}}`];
    const body = Buffer.from(`{"count":3,"next":null,"previous":null,"results":[${texts.join(' , ')}]}`);
    const records = (JSON.parse(body.toString()) as { results: unknown[] }).results;
    const page: PageBatch = { source: { url: 'http://x/api/images/', offset: 0 }, count: 3, records, body };
    const valid = validatePage(page);
    expect(valid.rejects.map((r) => r.text)).toEqual([texts[1]]);
    const rows = normaliseRecords(valid.records, emptyNormalisationCounts());
    expect(rows.map((r) => r['extra'])).toEqual(['{"CIAS":47.0}', null]);
  });

  it('is exact through validate when the key search cannot be sure: a key also nested, a repeated key, escapes', () => {
    const texts = [
      `${open},"CIAS":1.0,"data":{"CIAS":2E0}}`, // CIAS twice in the page's bytes for one record that has it
      `${open.replace('14225', '14226')},"k":1,"\\u006b":-0}`, // a key written with an escape, repeated
      `${open.replace('14225', '14227')}}`,
    ];
    const body = Buffer.from(`{"count":3,"next":null,"previous":null,"results":[${texts.join(',')}]}`);
    const records = (JSON.parse(body.toString()) as { results: unknown[] }).results;
    const page: PageBatch = { source: { url: 'http://x/api/images/', offset: 0 }, count: 3, records, body };
    const rows = normaliseRecords(validatePage(page).records, emptyNormalisationCounts());
    expect(rows.map((r) => r['extra'])).toEqual(['{"CIAS":1.0,"data":{"CIAS":2E0}}', '{"\\u006b":-0}', null]);
  });

  it('gives every unknown member as served through validate when the search is sure, on a page of many records', () => {
    const texts = Array.from({ length: 50 }, (_, i) => {
      const id = String(14225 + i);
      return i % 3 === 0 ? `${open.replace('14225', id)}}` : `${open.replace('14225', id)},"CIAS":${i}.0,"TR":1E${i}}`;
    });
    const body = Buffer.from(`{"count":50,"next":null,"previous":null,"results":[${texts.join(',')}]}`);
    const records = (JSON.parse(body.toString()) as { results: unknown[] }).results;
    const page: PageBatch = { source: { url: 'http://x/api/images/', offset: 0 }, count: 50, records, body };
    const rows = normaliseRecords(validatePage(page).records, emptyNormalisationCounts());
    expect(rows.map((r) => r['extra'])).toEqual(
      texts.map((_, i) => (i % 3 === 0 ? null : `{"CIAS":${i}.0,"TR":1E${i}}`)),
    );
  });
});
