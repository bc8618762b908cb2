/**
 * integer list: a JSON array of integers within ±(2^53 - 1) (a collection's `communities`), held as its compact JSON
 * text (`[1,2]`, `[]`), which is how the service writes it; written as text like the json type, so DuckDB reads it
 * with `communities::BIGINT[]` and pandas with `json.loads`.
 */
import type { ColumnType } from '../column-type.js';
import { json } from './json.js';

const accepts = (v: unknown): boolean => Array.isArray(v) && v.every((n) => Number.isSafeInteger(n));

/** A column of lists of integers, as JSON text. */
export const integerList: ColumnType = {
  ...json,
  accepts,
  zod: (z) => z.array(z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER)),
  normalise: (v) => JSON.stringify(v),
  readers: { arrow: 'string (JSON array of integers)', duckdb: 'VARCHAR (cast to BIGINT[])', pandas: 'string' },
};
