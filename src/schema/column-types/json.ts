/**
 * json: any JSON value nested at most MAX_JSON_DEPTH levels deep (deeper would overflow JSON.stringify), held as
 * its JSON text: the `extra` column, the record's keys that no other column names (extra-json.ts). Written as text.
 */
import type { ColumnType } from '../column-type.js';
import { isShallowJson, MAX_JSON_DEPTH } from '../json-depth.js';
import { string } from './string.js';

const TOO_DEEP = `expected a value nested at most ${MAX_JSON_DEPTH} levels deep`;

/** A column of JSON texts. */
export const json: ColumnType = {
  ...string,
  kind: 'json',
  accepts: isShallowJson,
  zod: (z) => z.unknown().refine(isShallowJson, { message: TOO_DEEP }),
  normalise: (v) => JSON.stringify(v), // `extra` keeps each value's text as served instead (extra-json.ts)
  readers: { arrow: 'string (JSON)', duckdb: 'VARCHAR (cast to JSON)', pandas: 'string' },
};
