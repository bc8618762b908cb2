/**
 * json: any JSON value nested at most MAX_JSON_DEPTH levels deep (deeper would overflow JSON.stringify), held as
 * its JSON text: the `extra` column, the record's keys that no other column names (extra-json.ts). Written as text.
 * Its strings and keys hold no lone UTF-16 surrogate (served as an escape, `"\ud800"`): DuckDB's JSON, which load.sql
 * casts the column to, refuses the whole text, and every query of the view would fail.
 */
import type { ColumnType } from '../column-type.js';
import { isShallowJson, MAX_JSON_DEPTH } from '../json-depth.js';
import { string } from './string.js';

const TOO_DEEP = `expected a value nested at most ${MAX_JSON_DEPTH} levels deep`;
const LONE_SURROGATE = 'expected JSON without a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape)';

/** A column of JSON texts. */
export const json: ColumnType = {
  ...string,
  kind: 'json',
  accepts: (v) => isShallowJson(v) && isWellFormedJson(v),
  zod: (z) =>
    z
      .unknown()
      .refine(isShallowJson, { message: TOO_DEEP, abort: true })
      .refine(isWellFormedJson, { message: LONE_SURROGATE }),
  normalise: (v) => JSON.stringify(v), // `extra` keeps each value's text as served instead (extra-json.ts)
  readers: { arrow: 'string (JSON)', duckdb: 'VARCHAR (cast to JSON)', pandas: 'string' },
};

/** True when every string and key of a parsed JSON value is well-formed UTF-16 (checked without recursion). */
function isWellFormedJson(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (!node.isWellFormed()) return false;
    } else if (typeof node === 'object' && node !== null) {
      for (const key in node) {
        if (!key.isWellFormed()) return false;
        stack.push((node as Record<string, unknown>)[key]);
      }
    }
  }
  return true;
}
