/**
 * string: JSON text that UTF-8 can hold (no lone UTF-16 surrogates, which the outputs would silently turn into
 * U+FFFD) and every loader reads back (no NUL, at which pandas' CSV reader ends a field); `""` and the column's
 * sentinel become null (counted); Arrow Utf8; CSV text, quoted and formula-neutralised as csv-field.ts says.
 */
import type { ColumnType } from '../column-type.js';
import { csvText } from '../encoding/csv-field.js';
import { refusedValue } from '../encoding/invalid-value.js';
import { utf8FromStrings } from '../encoding/utf8-from-strings.js';

const holds = (v: unknown): v is string => typeof v === 'string';
const accepts = (v: unknown): boolean => typeof v === 'string' && v.isWellFormed() && !v.includes('\0');

/** A column of text. */
export const string: ColumnType = {
  kind: 'string',
  accepts,
  zod: (z) => z.string().refine(accepts, { message: 'expected text without lone UTF-16 surrogates or NUL characters' }),
  normalise: (v, column, counts) => {
    if (v === '') return countedNull(counts.emptyToNull, column.name);
    if (v === column.sentinel) return countedNull(counts.sentinelToNull, column.name);
    return v as string;
  },
  holds,
  expected: 'a string',
  arrowType: (arrow) => new arrow.Utf8(),
  arrowEncoder: (arrow) => (column) => {
    const { values } = column;
    const strings = new Array<string | null>(values.length);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v !== null && !holds(v)) throw refusedValue(column, i, string);
      strings[i] = v;
    }
    return utf8FromStrings(arrow, strings);
  },
  csvField: (v, neutraliseFormulas) => csvText(v as string, neutraliseFormulas),
  fromCsv: (f) => f,
  parquetjs: 'UTF8',
  dictionary: true,
  readers: { arrow: 'string', duckdb: 'VARCHAR', pandas: 'string' },
};

/** Counts one more null made in column `name`. */
function countedNull(counts: Record<string, number>, name: string): null {
  counts[name] = (counts[name] ?? 0) + 1;
  return null;
}
