/**
 * One `--where` condition, `<column> <op> <value>`, parsed against the output schema and typed by the column's type:
 * `=`, `!=`, `<`, `<=`, `>`, `>=`, `in (…)`, `is null`, `is not null`, `like` (text columns; `%` any run, `_` one
 * character). Values are written as in SQL: numbers bare, `true`/`false`, text and timestamps in single quotes (`''`
 * for a quote). As in SQL, a comparison with a null value is false, so `!=` and `not`-free forms never match nulls.
 */
import type { Column } from '../schema/column-type.js';
import { COLUMNS } from '../schema/columns.js';
import { parseTimestampMicros } from '../schema/timestamp.js';
import { nearestName } from '../text/nearest-name.js';
import { FilesError } from './files-error.js';
import { likePattern, matchesLike, type LikePattern, type LikeSteps } from './like-pattern.js';

/** A value a condition compares: number (int64, float64), boolean, bigint (timestamp, UTC microseconds), string. */
export type ConditionValue = number | boolean | bigint | string;

/** A parsed condition. */
export interface WhereCondition {
  /** The column it reads. */
  column: Column;
  /** The operator. */
  op: '=' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'is null' | 'is not null' | 'like';
  /** The values compared with (one, or the list of `in`). */
  values: ConditionValue[];
  /** For `like`: the compiled pattern (like-pattern.ts). */
  pattern?: LikePattern;
  /** The condition as written. */
  text: string;
}

const BY_NAME = new Map(COLUMNS.map((c) => [c.name, c]));
const TEXT_KINDS = new Set(['string', 'category', 'json']);
const CONDITION =
  /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(is\s+not\s+null|is\s+null|not\s+in|in|like|<=|>=|!=|<>|==|=|<|>)\s*([\s\S]*?)\s*$/i;

/** Parses one condition; a FilesError (FILES_BAD_WHERE) naming the condition and what is wrong with it. */
export function parseWhere(text: string): WhereCondition {
  const bad = (why: string): FilesError =>
    FilesError.of('FILES_BAD_WHERE', `files: --where ${JSON.stringify(text)}: ${why}`);
  const joined = joinedConditions(text);
  if (joined !== undefined) throw bad(joined);
  const match = CONDITION.exec(text);
  if (match === null)
    throw bad('expected "<column> <op> <value>" with op one of = != < <= > >= in like, is null, is not null');
  const [, name, rawOp, rest] = match as unknown as [string, string, string, string];
  const column = BY_NAME.get(name);
  if (column === undefined) {
    const nearest = nearestName(name, [...BY_NAME.keys()]);
    const hint = nearest === undefined ? '' : `: did you mean ${nearest}?`;
    throw bad(`no column ${JSON.stringify(name)} in the output schema${hint}`);
  }
  if (rawOp === '==') throw bad(`== is not an operator: write = (${name} = ${rest})`);
  const op = rawOp.toLowerCase().replace(/\s+/g, ' ').replace('<>', '!=') as WhereCondition['op'] | 'not in';
  if (op === 'not in') throw bad('not in is not supported; use several != conditions');
  if (op === 'is null' || op === 'is not null') {
    if (rest !== '') throw bad(`nothing may follow ${op}, got ${JSON.stringify(rest)}`);
    return { column, op, values: [], text };
  }
  const kind = column.type.kind;
  if (op === 'in') {
    const list = /^\(([\s\S]*)\)$/.exec(rest);
    if (list === null) throw bad("in takes a parenthesised list: in (1, 2) or in ('T map', 'Z map')");
    const values = splitList(list[1]!).map((item) => typedValue(column, item, bad));
    if (values.length === 0) throw bad('in takes at least one value');
    return { column, op, values, text };
  }
  if (op === 'like') {
    if (!TEXT_KINDS.has(kind)) throw bad(`like compares text, and ${column.name} is ${kind}`);
    const value = typedValue(column, rest, bad) as string;
    return { column, op, values: [value], pattern: likePattern(value), text };
  }
  if (kind === 'boolean' && op !== '=' && op !== '!=') throw bad(`${column.name} is boolean: use = or !=`);
  return { column, op, values: [typedValue(column, rest, bad)], text };
}

/** Whether a row's value (null for none) satisfies the condition; `steps` counts a `like`'s comparisons. */
export function matchesWhere(condition: WhereCondition, value: ConditionValue | null, steps?: LikeSteps): boolean {
  const { op, values } = condition;
  if (op === 'is null') return value === null;
  if (op === 'is not null') return value !== null;
  if (value === null) return false;
  if (op === 'like') return matchesLike(condition.pattern!, value as string, steps);
  if (op === 'in') return values.some((v) => v === value);
  return COMPARE[op](value, values[0]!);
}

/** The comparisons, of a row's value with the condition's. */
const COMPARE: Record<'=' | '!=' | '<' | '<=' | '>' | '>=', (a: ConditionValue, b: ConditionValue) => boolean> = {
  '=': (a, b) => a === b,
  '!=': (a, b) => a !== b,
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

/** A literal as the column's type reads it. */
function typedValue(column: Column, literal: string, bad: (why: string) => FilesError): ConditionValue {
  const shown = literal === '' ? 'nothing' : literal;
  const kind = column.type.kind;
  const quoted = /^'((?:[^']|'')*)'$/.exec(literal);
  const text = quoted === null ? undefined : quoted[1]!.replaceAll("''", "'");
  if (TEXT_KINDS.has(kind)) {
    if (text === undefined) throw bad(`${column.name} is text: write the value in single quotes, got ${shown}`);
    return text;
  }
  if (kind === 'timestamp') {
    // a date: its midnight, UTC
    const full = text === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(text) ? text : `${text}T00:00:00`;
    const micros =
      full === undefined ? undefined : parseTimestampMicros(/(?:[zZ]|[+-]\d\d:?\d\d)$/.test(full) ? full : `${full}Z`);
    if (micros === undefined)
      throw bad(`${column.name} is a timestamp: write it quoted, as '2020-01-31T12:00:00Z', got ${shown}`);
    return micros;
  }
  if (kind === 'boolean') {
    const lower = literal.toLowerCase();
    if (lower !== 'true' && lower !== 'false')
      throw bad(`${column.name} is boolean: expected true or false, got ${shown}`);
    return lower === 'true';
  }
  const number = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(literal) ? Number(literal) : NaN;
  if (!Number.isFinite(number)) throw bad(`${column.name} is a number (${kind}): expected one, got ${shown}`);
  if (kind === 'int64' && !Number.isSafeInteger(number)) throw bad(`${column.name} is a whole number: got ${literal}`);
  return number;
}

/**
 * What to write instead of conditions `text` joins with AND or OR outside its quoted values (SQL's habit): a --where
 * each, or `in` for values of one column; undefined when `text` is one condition.
 */
function joinedConditions(text: string): string | undefined {
  const parts: string[] = [];
  let or = false;
  let quoted = false;
  let start = 0;
  for (const m of text.matchAll(/'|\s+(and|or)\s+/gi)) {
    if (m[0] === "'") quoted = !quoted;
    else if (!quoted) {
      parts.push(text.slice(start, m.index).trim());
      start = m.index + m[0].length;
      or ||= m[1]!.toLowerCase() === 'or';
    }
  }
  if (parts.length === 0) return undefined;
  parts.push(text.slice(start).trim());
  if (!or) return `one condition per --where, all of which must hold: ${parts.map((p) => `--where "${p}"`).join(' ')}`;
  const equal = parts.map((p) => /^([A-Za-z_]\w*)\s*=\s*(.+)$/.exec(p));
  const name = equal[0]?.[1];
  const example = equal.every((e) => e !== null && e[1] === name)
    ? `${name} in (${equal.map((e) => e![2]).join(', ')})`
    : "map_type in ('T map', 'Z map')";
  return `conditions cannot be joined with OR; for values of one column use in: ${example}`;
}

/** The items of an `in` list, split at commas outside quotes. */
function splitList(inner: string): string[] {
  const items: string[] = [];
  let current = '';
  let quoted = false;
  for (const ch of inner) {
    if (ch === "'") quoted = !quoted;
    if (ch === ',' && !quoted) {
      items.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim() !== '' || items.length > 0) items.push(current.trim());
  return items;
}
