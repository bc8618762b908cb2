/**
 * The quick check of a list page's envelope, run on every page; it accepts exactly what PageSchema (zod) accepts
 * (a property test holds them together), and zod is loaded only to explain a page it refuses.
 */
import type { Page } from '../../schema/image-schema.js';

/**
 * The list envelope when `parsed` is one as PageSchema defines it (count a safe integer ≥ 0, next and previous strings
 * or null, results an array), else undefined.
 */
export function pageEnvelope(parsed: unknown): Page | undefined {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const { count, next, previous, results } = parsed as Record<string, unknown>;
  if (!Number.isSafeInteger(count) || (count as number) < 0) return undefined;
  if (
    !(typeof next === 'string' || next === null) ||
    !(typeof previous === 'string' || previous === null) ||
    !Array.isArray(results)
  )
    return undefined;
  return { count: count as number, next, previous, results: results as unknown[] };
}
