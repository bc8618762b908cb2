/**
 * What the collections table must hold for a served collection, from the facts about the real service
 * (test/fixtures/neurovault-collection-fields.json: the 107 keys, their JSON types) and not from src/: the test states
 * the rules, the tool must meet them.
 */
import { readFileSync } from 'node:fs';
import { epochMicros, type Expected } from './expected-row.js';

/** One key of a collection record as the facts give it. */
export interface CollectionField {
  key: string;
  type: 'integer' | 'string' | 'number' | 'boolean' | 'datetime' | 'integer[]';
  nullable: boolean;
}

const FIELDS_FILE = new URL('../fixtures/neurovault-collection-fields.json', import.meta.url);

/** The 107 keys of a collection record in served order. */
export const COLLECTION_FIELDS: CollectionField[] = (
  JSON.parse(readFileSync(FIELDS_FILE, 'utf8')) as { fields: CollectionField[] }
).fields;

/** The columns of the collections table: the 107 keys, then `extra`. */
export const COLLECTION_COLUMN_NAMES = [...COLLECTION_FIELDS.map((f) => f.key), 'extra'];

/**
 * The expected row of a served collection: integers and timestamps (UTC microseconds) as bigint, numbers, booleans,
 * strings with "" as null, the integer list as its compact JSON text, and `extra` from `extraText` (the unknown
 * members as served, or null).
 */
export function expectedCollectionRow(
  record: Record<string, unknown>,
  extraText: string | null = null,
): Record<string, Expected> {
  const row: Record<string, Expected> = {};
  for (const { key, type } of COLLECTION_FIELDS) {
    const value = record[key];
    if (value === undefined || value === null || value === '') row[key] = null;
    else if (type === 'integer') row[key] = BigInt(value as number);
    else if (type === 'datetime') row[key] = epochMicros(value as string);
    else if (type === 'integer[]') row[key] = JSON.stringify(value);
    else row[key] = value as Expected;
  }
  row['extra'] = extraText;
  return row;
}

/** How a timestamp column is selected so that DuckDB gives its exact microseconds. */
export function collectionSelectList(): string {
  const timestamps = new Set(COLLECTION_FIELDS.filter((f) => f.type === 'datetime').map((f) => f.key));
  return COLLECTION_COLUMN_NAMES.map((name) =>
    timestamps.has(name) ? `epoch_us("${name}") AS "${name}"` : `"${name}"`,
  ).join(', ');
}
