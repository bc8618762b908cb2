/**
 * What a column type is: one object holding a kind of value's whole behaviour, from the served JSON to every output
 * format (as a kysely dialect holds a database's). Each column of COLUMNS names one; nothing else states a type's
 * rules. A Column is defined here too: a column names its type, and a type normalises a column's values.
 */
import type * as Arrow from 'apache-arrow';
import type { z as Zod } from 'zod';
import type { NormalisationCounts } from './normalisation-counts.js';
import type { Row, RowValue } from './row.js';

/** The name of a column type. */
export type ColumnKind = 'int64' | 'float64' | 'boolean' | 'timestamp' | 'string' | 'category' | 'json';

/**
 * The apache-arrow module, handed to a type's Arrow members by the load stage: the schema does not load apache-arrow
 * itself, so that a run that writes no Arrow or Parquet never pays for loading it.
 */
export type ArrowModule = typeof Arrow;

/** The zod module, handed to a type's `zod` by image-schema.ts, which loads it only when a record needs explaining. */
export type ZodModule = typeof Zod;

/** One column of a batch of rows, as the Arrow stage hands it to its type's encoder. */
export interface BatchColumn {
  /** The column's name. */
  readonly name: string;
  /** Its value in each row (undefined for a key the row lacks). */
  readonly values: readonly (RowValue | undefined)[];
  /** The batch's rows: an error about a value names its row and the row's id. */
  readonly rows: readonly Row[];
  /** The page URL the rows came from. */
  readonly place: string;
}

/** Encodes one column of a batch as Arrow Data. */
export type ArrowEncoder = (column: BatchColumn) => Arrow.Data;

/** A column type: what a served value may be, what a row holds, and how each output writes it. */
export interface ColumnType {
  /** The type's name. */
  readonly kind: ColumnKind;
  /** Whether a served value (not null, not absent) is one of this type: the fast check of every record. */
  accepts(value: unknown): boolean;
  /** The rule of `accepts` in zod, whose issues explain a rejected record (a property test holds the two together). */
  zod(z: ZodModule): Zod.ZodType;
  /** A served value the type accepts, as a row holds it; the text types count what they turn into null in `counts`. */
  normalise(value: unknown, column: Column, counts: NormalisationCounts): RowValue;
  /** Whether a row value (not null) is one of this type: what every writer checks before it writes one. */
  holds(value: RowValue | undefined): value is RowValue;
  /** What `holds` wants, for the error about a value it refuses: "a safe integer". */
  readonly expected: string;
  /**
   * A derived column's value in the form a row of this type holds (int64: a BigInt within the safe integers as that
   * number); a value it cannot take exactly is returned as it is, for `holds` to refuse. Absent: values as they are.
   */
  fromDerived?(value: RowValue): RowValue;
  /** The Arrow (and so Parquet) type of a column of this type; `id` is the column's position, a dictionary's id. */
  arrowType(arrow: ArrowModule, id: number): Arrow.DataType;
  /** A new encoder of a column of Arrow type `type`, batch after batch (a category's dictionary grows). */
  arrowEncoder(arrow: ArrowModule, type: Arrow.DataType): ArrowEncoder;
  /** The CSV field of a value the type holds, before the record's fields are joined by `,`. */
  csvField(value: RowValue, neutraliseFormulas: boolean): string;
  /**
   * The value of a CSV field this type wrote, unquoted and not empty (an empty field is null); undefined when the text
   * is not one the type writes. Text is read as it stands: a `'` that neutralised a formula stays.
   */
  fromCsv(field: string): RowValue | undefined;
  /** The parquetjs-lite type a column of this type is written as. */
  readonly parquetjs: 'INT64' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMP_MICROS' | 'UTF8';
  /** Whether Parquet dictionary-encodes a column of this type, unless the column says otherwise. */
  readonly dictionary: boolean;
  /** How readers show a column of this type: the type columns of docs/schema.md. */
  readonly readers: { readonly arrow: string; readonly duckdb: string; readonly pandas: string };
}

/** Where a column's value comes from. */
export type ColumnOrigin =
  | 'record' // a key of the served record, validated and normalised by its type
  | 'derived' // computed from other keys by the column's `derive`
  | 'unknown-keys'; // the record's keys that no other column names, as one JSON object (extra-json.ts)

/** One output column. */
export interface Column {
  /** Column name, identical to the record key for `record` columns. */
  readonly name: string;
  /** What the values are, and how each stage and output handles them. */
  readonly type: ColumnType;
  /** Where the value comes from. */
  readonly origin: ColumnOrigin;
  /** One line for the schema table of docs/schema.md. */
  readonly doc: string;
  /** Whether Parquet dictionary-encodes it: its type's choice, off for values unique to each record. */
  readonly dictionary: boolean;
  /** The record is rejected when the key is absent or null (`id`). */
  readonly required?: boolean;
  /** A served value that means "none": it becomes null, counted (Cognitive Atlas' "None / Other" and "None"). */
  readonly sentinel?: string;
  /**
   * For a `derived` column: its value, from the record as served and the row so far (its record columns normalised,
   * the derived columns before it set).
   */
  readonly derive?: (record: Record<string, unknown>, row: Readonly<Row>) => RowValue;
}
