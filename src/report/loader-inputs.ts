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
}

/** Every non-null value of each category column, sorted by code point, from counts per value. */
export function categoryValues(counts: ReadonlyMap<string, ReadonlyMap<string | null, number>>): Map<string, string[]> {
  const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const values = (counted: ReadonlyMap<string | null, number>) =>
    [...counted.keys()].filter((v): v is string => v !== null).sort(byCodePoint);
  return new Map([...counts].map(([column, counted]) => [column, values(counted)]));
}
