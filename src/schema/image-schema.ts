/**
 * zod schemas of the service's Page envelope and Image record, derived from COLUMNS.
 * Unknown keys are allowed (they become the `extra` column); a known key with the wrong type is an error.
 */
import { z } from 'zod';
import { RECORD_COLUMNS, type ColumnKind } from './columns.js';
import { isShallowJson, MAX_JSON_DEPTH } from './json-depth.js';
import { parseTimestampMicros } from './timestamp.js';

const timestamp = z
  .string()
  .refine((s) => parseTimestampMicros(s) !== undefined, { message: 'expected an ISO 8601 timestamp with a UTC offset' });

const safeInt = z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);

/** Text that UTF-8 can hold: no lone UTF-16 surrogates (the outputs would silently turn them into U+FFFD). */
const text = z.string().refine((s) => s.isWellFormed(), { message: 'expected text without lone UTF-16 surrogates' });

/** The zod type of a record key of each column kind (before normalisation). */
export const ZOD_BY_KIND: Record<ColumnKind, z.ZodType> = {
  int64: safeInt,
  float64: z.number(),
  boolean: z.boolean(),
  timestamp,
  string: text,
  category: text,
  json: z.unknown(),
};

const shape: Record<string, z.ZodType> = {};
for (const column of RECORD_COLUMNS) shape[column.name] = ZOD_BY_KIND[column.kind].nullable().optional();
shape['id'] = safeInt.min(0);

/** An Image record as served; every known key is optional (atlases lack many) but typed, `id` is required; unknown keys are kept if they are not nested absurdly deep. */
export const ImageSchema = z.object(shape).catchall(
  z.unknown().refine(isShallowJson, { message: `expected a value nested at most ${MAX_JSON_DEPTH} levels deep` }),
);

/** The list envelope; records are validated one by one so that one bad record does not lose its page. */
export const PageSchema = z.object({
  count: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  next: z.string().nullable(),
  previous: z.string().nullable(),
  results: z.array(z.unknown()),
});

/** A validated list envelope. */
export type Page = z.infer<typeof PageSchema>;

/** One problem found in a record: where and what. */
export interface RecordIssue {
  /** Key path inside the record, e.g. `["file_size"]`. */
  path: (string | number)[];
  /** What is wrong, with the bad value where useful. */
  message: string;
}

/** Validates a record with the zod schema; undefined when it is valid, else its issues. */
export function imageIssues(raw: unknown): RecordIssue[] | undefined {
  const result = ImageSchema.safeParse(raw);
  if (result.success) return undefined;
  return result.error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: i.message }));
}
