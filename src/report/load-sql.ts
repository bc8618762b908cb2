/**
 * `load.sql`: DuckDB views over a snapshot folder's files with their exact types: an ENUM per category column holding
 * the values of this snapshot, `images` (Parquet, or CSV with every column typed), `collections` and their join when
 * the collections table is there.
 */
import type { Column } from '../schema/column-type.js';
import { COLLECTIONS } from '../schema/collection-columns.js';
import { IMAGES } from '../schema/columns.js';
import { COLLECTION_RECORD } from '../schema/loader-names.js';
import { TOOL } from '../snapshot/tool.js';
import { FILE_NAMES } from '../snapshot/formats.js';
import { COLLECTION_COLUMNS, COLLECTIONS_FILE } from './optional-inputs.js';
import { csvCategoryValues, type LoaderInputs } from './loader-inputs.js';

const DUCKDB_TYPES: Record<Exclude<Column['type']['kind'], 'category'>, string> = {
  int64: 'BIGINT',
  float64: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMPTZ',
  string: 'VARCHAR',
  json: 'JSON',
};

/** A SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** A quoted SQL identifier. */
function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The ENUM type of a category column. */
export function enumName(column: string): string {
  return `${column}_enum`;
}

/** The DuckDB type of a column as the `images` view gives it. */
export function duckdbType(column: Column): string {
  return column.type.kind === 'category' ? ident(enumName(column.name)) : DUCKDB_TYPES[column.type.kind];
}

/** The text of load.sql for a snapshot folder. */
export function loadSql(inputs: LoaderInputs): string {
  const lines = [
    "-- An img-etl snapshot: DuckDB views over this folder's files, with their exact types.",
    `-- Written by ${TOOL}. Run it in this folder (duckdb -init load.sql, or .read load.sql in the duckdb shell);`,
    "-- from elsewhere, first SET file_search_path = '<this folder>'. Running it again replaces what it made.",
    'DROP VIEW IF EXISTS images_with_collection;',
    'DROP VIEW IF EXISTS images;',
    'DROP VIEW IF EXISTS collections;',
    ...enumTypes(inputs),
    imagesView(inputs),
    ...collectionsViews(inputs),
  ];
  return lines.join('\n') + '\n';
}

/**
 * The images' columns, each with its type in the view: an ENUM for a category column whose values the snapshot
 * counted (the images' own), VARCHAR for one it did not (a pipeline's derived category column) or that holds none
 * (null everywhere, or no rows): DuckDB makes an ENUM of no values, but `ORDER BY` such a column fails.
 */
function imagesColumns(inputs: LoaderInputs): { columns: readonly Column[]; typeOf: (c: Column) => string } {
  const columns = (inputs.table ?? IMAGES).columns;
  const typeOf = (c: Column) =>
    c.type.kind === 'category' && !enumerated(inputs, c) ? DUCKDB_TYPES.string : duckdbType(c);
  return { columns, typeOf };
}

/** Whether a category column is an ENUM in the view: the snapshot counted its values, and it holds one at least. */
function enumerated(inputs: LoaderInputs, c: Column): boolean {
  return (inputs.categories.get(c.name)?.length ?? 0) > 0;
}

/**
 * An ENUM type per category column, of the values this snapshot holds: as the CSV file has them (a `'` before one
 * that starts like a formula) when the view reads the CSV file.
 */
function enumTypes(inputs: LoaderInputs): string[] {
  const categories = imagesColumns(inputs).columns.filter((c) => c.type.kind === 'category' && enumerated(inputs, c));
  const fromCsv = !inputs.files.has(FILE_NAMES.parquet) && inputs.files.has(FILE_NAMES.csv);
  const held = (fromCsv ? csvCategoryValues(inputs) : undefined) ?? inputs.categories;
  return categories.flatMap((c) => {
    const values = (held.get(c.name) ?? []).map(literal).join(', ');
    const type = ident(enumName(c.name));
    return [`DROP TYPE IF EXISTS ${type};`, `CREATE TYPE ${type} AS ENUM (${values});`];
  });
}

/** The `images` view over the Parquet file, else the CSV file with every column typed; a comment for Arrow only. */
function imagesView(inputs: LoaderInputs): string {
  const { columns, typeOf } = imagesColumns(inputs);
  const select = columns.map((c) => `  ${ident(c.name)}::${typeOf(c)} AS ${ident(c.name)}`).join(',\n');
  if (inputs.files.has(FILE_NAMES.parquet)) {
    return `CREATE VIEW images AS SELECT\n${select}\nFROM read_parquet(${literal(FILE_NAMES.parquet)});`;
  } else if (inputs.files.has(FILE_NAMES.csv)) {
    const from = readCsv(FILE_NAMES.csv, columns);
    return `CREATE VIEW images AS SELECT\n${csvSelect(columns, typeOf)}\nFROM ${from};`;
  }
  return `-- This snapshot holds ${FILE_NAMES.arrow} only, which DuckDB reads with an extension: no view.`;
}

/**
 * A column of a CSV file img-etl wrote, as read_csv gives it, made ready for the cast to its type: a timestamp is text,
 * which TIMESTAMPTZ parses (2016-01-21T17:21:57.860138Z, and -000001-12-31T23:30:00.000000Z) but for the extended
 * year after 9999 (+010000-01-01T04:00:00.000000Z), read without its `+` and leading zeros. read_csv typed
 * TIMESTAMPTZ made such a value null without a word.
 */
function csvValue(c: Column): string {
  const name = ident(c.name);
  if (c.type.kind !== 'timestamp') return name;
  return `(CASE WHEN starts_with(${name}, '+') THEN ltrim(${name}, '+0') ELSE ${name} END)`;
}

/** The select list of a view over a CSV file img-etl wrote: each column as csvValue gives it, cast to `typeOf` it. */
function csvSelect(columns: readonly Column[], typeOf: (c: Column) => string): string {
  return columns.map((c) => `  ${csvValue(c)}::${typeOf(c)} AS ${ident(c.name)}`).join(',\n');
}

/**
 * `read_csv` of a CSV file img-etl wrote, every column of its type: as text where a cast follows (ENUM, JSON,
 * timestamps: csvValue). An empty field is null, a quoted one (`""`) the empty string (a derived column's), as the
 * CSV writers have them; read_csv's default reads both as null.
 */
function readCsv(file: string, columns: readonly Column[]): string {
  const text = (c: Column) => c.type.kind === 'category' || c.type.kind === 'json' || c.type.kind === 'timestamp';
  const types = columns.map((c) => `${literal(c.name)}: ${literal(text(c) ? 'VARCHAR' : duckdbType(c))}`);
  const options =
    `header = true, auto_detect = false, delim = ',', quote = '"', escape = '"', nullstr = '', ` +
    'allow_quoted_nulls = false';
  return `read_csv(${literal(file)}, ${options},\n  columns = {${types.join(', ')}})`;
}

/**
 * The `collections` view: over the Parquet file, else the CSV file with the types the Parquet file gives (categories
 * and JSON as VARCHAR: the collections have no ENUMs).
 */
function collectionsView(inputs: LoaderInputs): string {
  const { parquet, csv } = COLLECTIONS.files;
  if (!inputs.files.has(csv) || inputs.files.has(parquet))
    return `CREATE VIEW collections AS SELECT * FROM read_parquet(${literal(COLLECTIONS_FILE)});`;
  const typed = (c: Column) => (c.type.kind === 'category' || c.type.kind === 'json' ? 'VARCHAR' : duckdbType(c));
  const { columns } = COLLECTIONS;
  return `CREATE VIEW collections AS SELECT\n${csvSelect(columns, typed)}\nFROM ${readCsv(csv, columns)};`;
}

/** The `collections` view and, with an `images` view, their join; a comment when there is no collections table. */
function collectionsViews(inputs: LoaderInputs): string[] {
  const images = inputs.files.has(FILE_NAMES.parquet) || inputs.files.has(FILE_NAMES.csv);
  if (inputs.collections && images) {
    const id = ident(COLLECTION_COLUMNS.id);
    return [
      collectionsView(inputs),
      `-- Each image with its collection's row as one struct column, \`${COLLECTION_RECORD}\` (null for an image whose`,
      '-- collection is not in the table).',
      'CREATE VIEW images_with_collection AS SELECT i.*,',
      `  CASE WHEN c.${id} IS NULL THEN NULL ELSE c END AS ${COLLECTION_RECORD}`,
      `FROM images AS i LEFT JOIN collections AS c ON c.${id} = i."collection_id";`,
    ];
  } else if (inputs.collections) {
    return [collectionsView(inputs)];
  }
  return [`-- No ${COLLECTIONS_FILE} in this snapshot: no collections view.`];
}
