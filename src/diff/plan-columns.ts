/**
 * Lining up the columns of two snapshots of a table for a diff: which are compared value by value and how, which exist
 * on one side only, which changed type beyond comparison. Output order is the table's column order, then any other
 * columns in old then new file order; `id` is the join key, never a changed field.
 */
import type { Field, TypeMap } from 'apache-arrow';
import { IMAGES } from '../schema/columns.js';
import type { Table } from '../schema/table.js';
import { columnEquality, valueFamily, type ValuesEqual } from './column-equality.js';
import { DiffError } from '../snapshot/diff-error.js';
import { ID_COLUMN, type DiffSide } from './diff-side.js';

/** How the two snapshots' columns line up. */
export interface SchemaDiff {
  /** Columns compared value by value (everything in both but `id`), in output order. */
  compared: string[];
  /** Columns only in the old snapshot: a changed field of every record in both. */
  onlyInOld: string[];
  /** Columns only in the new snapshot: a changed field of every record in both. */
  onlyInNew: string[];
  /**
   * Columns in both whose types hold incomparable values (e.g. int64 became string): a changed field of every record in
   * both.
   */
  retyped: { name: string; old: string; new: string }[];
  /** `img-etl.schema_version` in the old snapshot's metadata, when present. */
  oldVersion: string | undefined;
  /** `img-etl.schema_version` in the new snapshot's metadata, when present. */
  newVersion: string | undefined;
}

/** One output column of the comparison: compared by `equal`, or (when undefined) different in every record in both. */
export interface PlanColumn {
  /** Column name. */
  name: string;
  /** How its two sides' values are compared; undefined when it is on one side only or its type changed. */
  equal: ValuesEqual | undefined;
}

/** The schema key img-etl writes its schema version under. */
export const SCHEMA_VERSION_KEY = 'img-etl.schema_version';

/**
 * The columns to compare between two sides of `table` and how; throws a DiffError when a side has no integer id or a
 * column type diff cannot compare.
 */
export function planColumns(
  oldSide: DiffSide,
  newSide: DiffSide,
  table: Table = IMAGES,
): { schema: SchemaDiff; plan: PlanColumn[] } {
  checkId(oldSide);
  checkId(newSide);
  const oldFields = new Map(oldSide.schema.fields.map((f) => [f.name, f]));
  const newFields = new Map(newSide.schema.fields.map((f) => [f.name, f]));
  const schema: SchemaDiff = {
    compared: [],
    onlyInOld: [],
    onlyInNew: [],
    retyped: [],
    oldVersion: oldSide.schema.metadata.get(SCHEMA_VERSION_KEY),
    newVersion: newSide.schema.metadata.get(SCHEMA_VERSION_KEY),
  };
  const plan: PlanColumn[] = [];
  for (const name of outputNames(table, oldFields, newFields)) {
    const a = oldFields.get(name);
    const b = newFields.get(name);
    if (a === undefined) schema.onlyInNew.push(name);
    else if (b === undefined) schema.onlyInOld.push(name);
    else {
      plan.push({ name, equal: compareBoth(schema, name, [oldSide, a], [newSide, b]) });
      continue;
    }
    plan.push({ name, equal: undefined });
  }
  return { schema, plan };
}

/** A column of a side's schema. */
type SideField = Field<TypeMap[string]>;

/** The columns but `id` in output order: the table's (those on a side), then the others in old then new file order. */
function outputNames(
  table: Table,
  oldFields: ReadonlyMap<string, SideField>,
  newFields: ReadonlyMap<string, SideField>,
) {
  const known = table.names;
  return [
    ...new Set([
      ...known.filter((n) => oldFields.has(n) || newFields.has(n)),
      ...oldFields.keys(),
      ...newFields.keys(),
    ]),
  ].filter((n) => n !== ID_COLUMN);
}

/**
 * How a column on both sides is compared, noted in `schema` as compared or retyped; a DiffError when a side's type is
 * one diff cannot compare.
 */
function compareBoth(
  schema: SchemaDiff,
  name: string,
  ...sides: [[DiffSide, SideField], [DiffSide, SideField]]
): ValuesEqual | undefined {
  for (const [side, field] of sides) {
    if (valueFamily(field.type) === undefined)
      throw DiffError.of(
        'DIFF_UNSUPPORTED_TYPE',
        `diff: column "${name}" of ${side.path} has type ${String(field.type)}, which diff cannot compare`,
      );
  }
  const [a, b] = [sides[0][1], sides[1][1]];
  const equal = columnEquality(a.type, b.type);
  if (equal === undefined) schema.retyped.push({ name, old: String(a.type), new: String(b.type) });
  else schema.compared.push(name);
  return equal;
}

function checkId(side: DiffSide): void {
  const field = side.schema.fields.find((f) => f.name === ID_COLUMN);
  if (field === undefined) throw DiffError.of('DIFF_BAD_ID', `diff: ${side.path} has no "${ID_COLUMN}" column`);
  if (valueFamily(field.type) !== 'integer')
    throw DiffError.of(
      'DIFF_BAD_ID',
      `diff: ${side.path} has an "${ID_COLUMN}" column of type ${String(field.type)}, not an integer`,
    );
}
