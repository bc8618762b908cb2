/**
 * What a snapshot's generated loaders (load.sql, load.py) need to know about its files: the category values as written.
 */
import { neutraliseFormula } from '../schema/encoding/csv-field.js';
import type { Table } from '../schema/table.js';

/** What a snapshot's loaders are generated from. */
export interface LoaderInputs {
  /** The images table the snapshot holds (a pipeline's derived columns included); default IMAGES. */
  table?: Table;
  /** The data files the folder holds (`images.parquet`, `images.csv`, …). */
  files: ReadonlySet<string>;
  /** Every value of each category column in the data, sorted: the ENUM and the categories. */
  categories: ReadonlyMap<string, readonly string[]>;
  /** Whether the folder holds the collections table. */
  collections: boolean;
  /** Whether the CSV files put a `'` before text that starts like a formula (csv-field.ts); default false. */
  neutraliseFormulas?: boolean;
}

/**
 * The values of each category column as the CSV files hold them, sorted: with the `'` of formula neutralisation
 * before those that start like a formula. Undefined when they are the values as they are.
 */
export function csvCategoryValues(inputs: LoaderInputs): Map<string, string[]> | undefined {
  if (inputs.neutraliseFormulas !== true) return undefined;
  const written = (values: readonly string[]) => [...new Set(values.map(neutraliseFormula))].sort(byCodePoint);
  const changed = [...inputs.categories.values()].some((values) => values.some((v) => neutraliseFormula(v) !== v));
  return changed ? new Map([...inputs.categories].map(([column, values]) => [column, written(values)])) : undefined;
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every non-null value of each category column, sorted by code point, from counts per value. */
export function categoryValues(counts: ReadonlyMap<string, ReadonlyMap<string | null, number>>): Map<string, string[]> {
  const values = (counted: ReadonlyMap<string | null, number>) =>
    [...counted.keys()].filter((v): v is string => v !== null).sort(byCodePoint);
  return new Map([...counts].map(([column, counted]) => [column, values(counted)]));
}
