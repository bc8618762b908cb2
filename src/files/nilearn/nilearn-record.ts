/**
 * A metadata file of nilearn's NeuroVault folder, as nilearn writes it after its own download: the record as the
 * service served it (rebuilt from a snapshot row: its columns' exact values and its `extra`, or a record fetched),
 * every string nilearn reads as null made null (`_remove_none_strings`), the path keys nilearn adds, and the text of
 * Python's `json.dumps` with its defaults.
 */
import { ATLAS_KEYS, NIDM_MAP_KEYS, STATISTIC_MAP_KEYS } from '../../schema/record-keys.js';
import type { Column } from '../../schema/column-type.js';
import type { Row, RowValue } from '../../schema/row.js';
import type { Table } from '../../schema/table.js';
import { formatBerlinTimestamp } from '../../text/berlin-time.js';
import { asciiJsonString, pythonDumps, pythonFloat } from '../../text/python-json.js';
import { objectMembers } from '../../text/raw-json.js';

/** A record's members in the order served: each key's JSON text. */
export type Members = Map<string, string>;

/** The keys an image record of each kind is served with, in order (an unknown kind: every column of the table). */
const KEYS_OF_KIND: Readonly<Record<string, readonly string[]>> = {
  statistic_map: STATISTIC_MAP_KEYS,
  atlas: ATLAS_KEYS,
  'NIDM results statistic map': NIDM_MAP_KEYS,
};

/**
 * The members of a snapshot row of `table` as served: the keys of its kind (`image_type`) in order, each column's
 * value as the service writes it, the keys of `extra` where the service puts them (before `image_type`, or last).
 */
export function rowMembers(row: Row, table: Table): Members {
  const extra = row[table.extraColumn.name];
  const unknown = typeof extra === 'string' ? textMembers(extra) : new Map<string, string>();
  const kind = KEYS_OF_KIND[String(row['image_type'])];
  const keys = kind ?? table.recordColumns.map((c) => c.name);
  const members: Members = new Map();
  const flush = () => {
    for (const [key, text] of unknown) members.set(key, text);
    unknown.clear();
  };
  for (const key of keys) {
    const column = table.recordColumnByName.get(key);
    if (key === 'image_type') flush();
    if (column !== undefined) members.set(key, servedText(column, row[key] ?? null));
    else if (unknown.has(key)) {
      members.set(key, unknown.get(key)!);
      unknown.delete(key);
    }
  }
  flush();
  return members;
}

/** The members of a JSON object text, each value as written; a key written twice keeps its first place, last value. */
export function textMembers(text: string): Members {
  return new Map(objectMembers(text).map((m) => [m.key, text.slice(m.valueStart, m.valueEnd)]));
}

/** A row value of `column` as the service writes it (timestamps in Europe/Berlin offsets, floats as Python does). */
function servedText(column: Column, value: RowValue): string {
  if (value === null) return 'null';
  switch (column.type.kind) {
    case 'float64':
      return pythonFloat(value as number);
    case 'timestamp':
      return JSON.stringify(formatBerlinTimestamp(Number(value)));
    case 'json':
      return value as string;
    case 'string':
    case 'category':
      return JSON.stringify(value);
    default:
      return String(value);
  }
}

/** nilearn's none-rule: a string that is empty, "n/a", "na", or starts with "none" or "null" (any case) means null. */
const NONE = /^(?:\n?$|n\/?a\n?$|none|null)/i;

/** The file's text: the members with nilearn's none-rule applied, then `paths`, as `json.dumps` writes them. */
export function nilearnJson(members: Members, paths: Record<string, string>): string {
  const parts: string[] = [];
  for (const [key, text] of members) {
    const none = text.startsWith('"') && NONE.test(JSON.parse(text) as string);
    parts.push(`${asciiJsonString(key)}: ${none ? 'null' : pythonDumps(text)}`);
  }
  for (const [key, path] of Object.entries(paths)) parts.push(`${asciiJsonString(key)}: ${asciiJsonString(path)}`);
  return `{${parts.join(', ')}}`;
}
