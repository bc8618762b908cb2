import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdHeap } from '../../src/run/id-heap.js';

describe('IdHeap', () => {
  it('gives items back in ascending id order, whatever the pushes and pops', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.constant(-1)), { maxLength: 300 }), (ops) => {
        const heap = new IdHeap<string>();
        const model: number[] = [];
        for (const op of ops) {
          if (op < 0) {
            model.sort((a, b) => a - b);
            const expected = model.shift();
            expect(heap.pop()).toBe(expected === undefined ? undefined : `r${expected}`);
          } else {
            heap.push(op, `r${op}`);
            model.push(op);
          }
          expect(heap.size).toBe(model.length);
          expect(heap.minId).toBe(model.length === 0 ? undefined : Math.min(...model));
        }
      }),
    );
  });
});
