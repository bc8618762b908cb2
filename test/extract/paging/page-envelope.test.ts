import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pageEnvelope } from '../../../src/extract/paging/page-envelope.js';
import { PageSchema } from '../../../src/schema/image-schema.js';

describe('pageEnvelope', () => {
  it('accepts exactly what PageSchema accepts, and gives the same envelope', () => {
    const value = fc.oneof(
      fc.constant(null),
      fc.string(),
      fc.boolean(),
      fc.integer(),
      fc.double(),
      fc.array(fc.jsonValue(), { maxLength: 3 }),
      fc.constant(undefined),
    );
    const page = fc.record(
      {
        count: fc.oneof(
          fc.nat(),
          fc.integer({ min: -5, max: 5 }),
          fc.double(),
          fc.constant(2 ** 53),
          fc.constant(-0),
          value,
        ),
        next: value,
        previous: value,
        results: fc.oneof(fc.array(fc.jsonValue(), { maxLength: 3 }), value),
        other: value,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(page, value), (candidate) => {
        const zod = PageSchema.safeParse(candidate);
        const quick = pageEnvelope(candidate);
        expect(quick !== undefined).toBe(zod.success);
        if (zod.success) expect(quick).toEqual(zod.data);
      }),
      { numRuns: 2000 },
    );
  });
});
