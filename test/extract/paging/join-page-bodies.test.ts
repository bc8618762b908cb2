import { describe, expect, it } from 'vitest';
import { joinPageBodies } from '../../../src/extract/paging/join-page-bodies.js';

describe('joinPageBodies', () => {
  it("joins the halves' records, each as served, into one page body (a skipped record has no body)", () => {
    const envelope = '{"count":10,"next":null,"previous":null,"results":';
    const left = Buffer.from('\ufeff{ "count" : 9, "results" : [ {"id":1,"x":1.0} ,\n{"id":2,"x":"é"} ] }');
    const right = Buffer.from(`${envelope}[{"id":3,"x":12345678901234567890}]}`);
    const body = joinPageBodies(10, [left, undefined, right, Buffer.from(`${envelope}[]}`)]);
    const records = '{"id":1,"x":1.0},{"id":2,"x":"é"},{"id":3,"x":12345678901234567890}';
    expect(body.toString('utf8')).toBe(`${envelope}[${records}]}`);
    expect(joinPageBodies(10, [undefined]).toString()).toBe(`${envelope}[]}`);
  });
});
