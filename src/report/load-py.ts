/**
 * `load.py`: a snapshot's tables into pandas with exact, nullable types, from whichever file the folder has: Parquet
 * or Arrow where pandas has pyarrow, else CSV read with `keep_default_na=False` (a name such as "None" stays text),
 * every column's dtype, floats exactly (`float_precision="round_trip"`) and the timestamps in UTC. The dtypes come from
 * each column's type (`readers.pandas`), the categories of the images from this snapshot, those of the collections from
 * the file read. Works with pandas 1.5 without pyarrow (Debian 12) and pandas 2 and 3.
 */
import type { Column } from '../schema/column-type.js';
import { COLLECTIONS } from '../schema/collection-columns.js';
import { IMAGES } from '../schema/columns.js';
import type { Table } from '../schema/table.js';
import { TOOL } from '../snapshot/tool.js';
import { COLLECTION_COLUMNS } from './optional-inputs.js';
import { csvCategoryValues, type LoaderInputs } from './loader-inputs.js';
import { pyReaders } from './load-py-readers.js';

const py = (value: unknown) => JSON.stringify(value); // JSON strings, lists and objects are Python literals too

/** The text of load.py for a snapshot folder. */
export function loadPy(inputs: LoaderInputs): string {
  const images = pyTable(inputs.table ?? IMAGES, inputs.categories, csvCategoryValues(inputs));
  const tables = `TABLES = {\n${images}\n${pyTable(COLLECTIONS)}\n}`;
  const join = `JOIN = {"left_on": "collection_id", "right_on": ${py(COLLECTION_COLUMNS.id)}}`;
  return `${pyHeader()}\n\nHERE = Path(__file__).resolve().parent\n${tables}\n${join}\n\n\n${pyReaders()}\n`;
}

/** The module's docstring and imports. */
function pyHeader(): string {
  return `"""pandas loader of the img-etl snapshot in this folder (written by ${TOOL}).

From Python: sys.path.insert(0, folder), import load, then load.images(), load.collections() and
load.images_with_collection(): each from Parquet or Arrow when pandas has pyarrow, else from CSV, with the same dtypes.
python3 load.py says in one line what it read; --csv reads the CSV files, --json prints the dtypes as JSON.
"""
import json
import sys
from pathlib import Path

import pandas as pd`;
}

/**
 * A table's entry of TABLES: its files, columns in order, the pandas dtype of each plain column, its timestamp and
 * category columns, and the values of the categories where this snapshot knows them (else they are the file's), and
 * as the CSV file has them where that differs (`inCsvFile`: a `'` before a value that starts like a formula).
 */
function pyTable(
  table: Table,
  categories?: ReadonlyMap<string, readonly string[]>,
  inCsvFile?: ReadonlyMap<string, readonly string[]>,
): string {
  const of = (kind: Column['type']['kind']) => table.columns.filter((c) => c.type.kind === kind).map((c) => c.name);
  const plain = table.columns.filter((c) => c.type.kind !== 'category' && c.type.kind !== 'timestamp');
  const dtypes = plain.map((c) => `        ${py(c.name)}: ${py(c.type.readers.pandas)},`);
  // a category whose values the snapshot did not count (a pipeline's derived one) takes the values read
  const counted = of('category').filter((name) => categories?.has(name) === true);
  const values = (of: ReadonlyMap<string, readonly string[]>) =>
    `{\n${counted.map((name) => `        ${py(name)}: ${py(of.get(name))},`).join('\n')}\n        },`;
  const inCsv = inCsvFile === undefined ? '' : `\n        "csv_category_values": ${values(inCsvFile)}`;
  const { parquet, arrow, csv } = table.files;
  return `    ${py(table.name)}: {
        "files": ${py({ parquet, arrow, csv })},
        "columns": ${py(table.names)},
        "dtypes": {
${dtypes.join('\n')}
        },
        "timestamps": ${py(of('timestamp'))},
        "categories": ${py(of('category'))},
        "category_values": ${categories === undefined ? '{},' : values(categories)}${inCsv}
    },`;
}
