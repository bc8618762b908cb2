/**
 * zod schemas of the service's Page envelope and of a table's record (an Image, a Collection), the record's built from
 * the table's column types. Unknown keys are allowed (they become the `extra` column); a known key with the wrong type
 * is an error.
 */
import { z } from 'zod';
import { IMAGES } from './columns.js';
import type { RecordIssue } from './record-issue.js';
import type { Table } from './table.js';

// Weak: a long-lived program that builds tables (withColumns, per pipeline run) does not keep each one and its schema.
const schemas = new WeakMap<Table, z.ZodType>();

/** The zod schema of a record of `table`: every known key optional but typed, required ones present; made once. */
export function recordSchema(table: Table): z.ZodType {
  let schema = schemas.get(table);
  if (schema === undefined) {
    const shape: Record<string, z.ZodType> = {};
    for (const column of table.recordColumns) {
      const type = column.type.zod(z);
      shape[column.name] = column.required ? type : type.nullable().optional();
    }
    const extra = table.extraColumn.type;
    // An unknown key is in `extra`'s JSON text too: a JSON string the type must accept (no lone surrogate).
    schema = z
      .object(shape)
      .catchall(extra.zod(z))
      .superRefine((record, ctx) => {
        for (const key of Object.keys(record)) {
          if (table.recordColumnByName.has(key) || extra.accepts(key)) continue;
          ctx.addIssue({ code: 'custom', path: [key], message: 'expected a key without a lone UTF-16 surrogate' });
        }
      });
    schemas.set(table, schema);
  }
  return schema;
}

/**
 * An Image record as served; every known key is optional (atlases lack many) but typed, `id` is required; unknown keys
 * are kept if they are not nested absurdly deep.
 */
export const ImageSchema = recordSchema(IMAGES);

/** The list envelope; records are validated one by one so that one bad record does not lose its page. */
export const PageSchema = z.object({
  count: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  next: z.string().nullable(),
  previous: z.string().nullable(),
  results: z.array(z.unknown()),
});

/** A validated list envelope. */
export type Page = z.infer<typeof PageSchema>;

/** Validates an Image record with ImageSchema; undefined when it is valid, else its issues. */
export function imageIssues(raw: unknown): RecordIssue[] | undefined {
  return recordIssues(raw, IMAGES);
}

/** Validates a record of `table` with its zod schema; undefined when it is valid, else its issues. */
export function recordIssues(raw: unknown, table: Table): RecordIssue[] | undefined {
  const result = recordSchema(table).safeParse(raw);
  if (result.success) return undefined;
  return result.error.issues.map((i) => ({
    path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    message: i.message,
  }));
}
