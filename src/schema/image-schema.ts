/**
 * zod schemas of the service's Page envelope and Image record, the record's built from COLUMNS' types. Unknown keys
 * are allowed (they become the `extra` column); a known key with the wrong type is an error.
 */
import { z } from 'zod';
import { EXTRA_COLUMN, RECORD_COLUMNS } from './columns.js';

const shape: Record<string, z.ZodType> = {};
for (const column of RECORD_COLUMNS) {
  const type = column.type.zod(z);
  shape[column.name] = column.required ? type : type.nullable().optional();
}

/**
 * An Image record as served; every known key is optional (atlases lack many) but typed, `id` is required; unknown keys
 * are kept if they are not nested absurdly deep.
 */
export const ImageSchema = z.object(shape).catchall(EXTRA_COLUMN.type.zod(z));

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
