/**
 * `load.py`: the snapshot into pandas with exact, nullable types: `read_parquet` with nullable dtypes and the
 * categories of this snapshot, or `read_csv` with `keep_default_na=False` (a name such as "None" or "null" stays
 * text), every column's dtype, and the timestamps in UTC. Works with pandas 1.5 (Debian 12) and 2.x.
 */
import type { Column } from '../schema/column-type.js';
import { COLUMNS } from '../schema/columns.js';
import { FILE_NAMES } from '../snapshot/formats.js';
import { TOOL } from '../snapshot/tool.js';
import { COLLECTION_COLUMNS, COLLECTIONS_FILE } from './optional-inputs.js';
import type { LoaderInputs } from './loader-inputs.js';

const PANDAS_DTYPES: Record<Exclude<Column['type']['kind'], 'category' | 'timestamp'>, string> = {
  int64: 'Int64',
  float64: 'Float64',
  boolean: 'boolean',
  string: 'string',
  json: 'string',
};

const pandasDtype = (c: Column) => PANDAS_DTYPES[c.type.kind as keyof typeof PANDAS_DTYPES];
const py = (value: unknown) => JSON.stringify(value); // JSON strings, lists and objects are Python literals too

/** The text of load.py for a snapshot folder. */
export function loadPy(inputs: LoaderInputs): string {
  const definitions = [pyParquetReader(), pyCsvReader(), pyTableReaders(), pyMain(inputs.collections)];
  return `${pyHeader()}\n\n${pyColumns(inputs)}\n\n\n${definitions.join('\n\n\n')}\n`;
}

/** The module's docstring and imports. */
function pyHeader(): string {
  return `"""pandas loader of the img-etl snapshot in this folder (written by ${TOOL}).

python3 load.py [--csv] prints what it loaded as JSON; from Python: sys.path.insert(0, folder), import load,
then load.images() (Parquet when pandas can read it, else CSV), load.read_csv(), and with the collections table
load.collections() and load.images_with_collection().
"""
import json
import sys
from pathlib import Path

import pandas as pd`;
}

/** The columns, their dtypes, this snapshot's categories and the timestamps; the categories as pandas dtypes. */
function pyColumns(inputs: LoaderInputs): string {
  const plain = COLUMNS.filter((c) => c.type.kind !== 'category' && c.type.kind !== 'timestamp');
  const dtypes = plain.map((c) => `    ${py(c.name)}: ${py(pandasDtype(c))},`);
  const categories = COLUMNS.filter((c) => c.type.kind === 'category').map(
    (c) => `    ${py(c.name)}: ${py(inputs.categories.get(c.name) ?? [])},`,
  );
  const timestamps = COLUMNS.filter((c) => c.type.kind === 'timestamp').map((c) => c.name);
  return `HERE = Path(__file__).resolve().parent
COLUMNS = ${py(COLUMNS.map((c) => c.name))}
DTYPES = {
${dtypes.join('\n')}
}
CATEGORIES = {
${categories.join('\n')}
}
TIMESTAMPS = ${py(timestamps)}


def _category_dtypes():
    return {column: pd.CategoricalDtype(values) for column, values in CATEGORIES.items()}`;
}

/** read_parquet, and the one-line error when pandas has no Parquet engine. */
function pyParquetReader(): string {
  return `class ParquetEngineMissing(ImportError):
    """pandas reads Parquet with pyarrow or fastparquet, and neither is installed."""


def _need_parquet_engine(path):
    if not _can_read_parquet():
        raise ParquetEngineMissing(
            f"load.py: {path} is Parquet, which pandas reads with pyarrow or fastparquet, and neither is installed "
            "here: install one (pip install pyarrow), or read a snapshot written with --to csv (read_csv())"
        )


def read_parquet(path=HERE / ${py(FILE_NAMES.parquet)}):
    """images.parquet with nullable dtypes (Int64, Float64, boolean, string) and categories; needs pyarrow."""
    _need_parquet_engine(path)
    if int(pd.__version__.split(".")[0]) >= 2:
        frame = pd.read_parquet(path, dtype_backend="numpy_nullable")
    else:
        frame = pd.read_parquet(path, use_nullable_dtypes=True)
    return frame.astype({**DTYPES, **_category_dtypes()})[COLUMNS]`;
}

/** read_csv: only an empty field is null, every column typed, timestamps in UTC. */
function pyCsvReader(): string {
  return `def read_csv(path=HERE / ${py(FILE_NAMES.csv)}):
    """images.csv: only an empty field is null (keep_default_na=False), every column typed, timestamps in UTC."""
    frame = pd.read_csv(
        path,
        keep_default_na=False,
        na_values=[""],
        dtype={**DTYPES, **_category_dtypes(), **{column: "string" for column in TIMESTAMPS}},
    )
    for column in TIMESTAMPS:
        frame[column] = pd.to_datetime(frame[column], utc=True)
    return frame[COLUMNS]`;
}

/** images() from Parquet or CSV, collections() and images_with_collection(). */
function pyTableReaders(): string {
  return `def _can_read_parquet():
    for module in ("pyarrow", "fastparquet"):
        try:
            __import__(module)
            return True
        except ImportError:
            pass
    return False


def images(folder=HERE):
    """The images table: from Parquet when the folder has it and pandas can read it, else from CSV."""
    folder = Path(folder)
    parquet, csv = folder / ${py(FILE_NAMES.parquet)}, folder / ${py(FILE_NAMES.csv)}
    if parquet.exists() and (_can_read_parquet() or not csv.exists()):
        return read_parquet(parquet)
    if csv.exists():
        return read_csv(csv)
    raise FileNotFoundError(f"load.py: {folder} has no ${FILE_NAMES.parquet} and no ${FILE_NAMES.csv}")


def collections(folder=HERE):
    """The collections table (${COLLECTIONS_FILE}), when the snapshot has it; needs pyarrow."""
    path = Path(folder) / ${py(COLLECTIONS_FILE)}
    _need_parquet_engine(path)
    return pd.read_parquet(path)


def images_with_collection(folder=HERE):
    """Each image with its collection's columns (suffixed _collection where names clash)."""
    return images(folder).merge(
        collections(folder), how="left", left_on="collection_id", right_on=${py(COLLECTION_COLUMNS.id)},
        suffixes=("", "_collection"),
    )`;
}

/** What `python3 load.py [--csv]` prints: what it loaded, as JSON. */
function pyMain(collections: boolean): string {
  return `if __name__ == "__main__":
    try:
        frame = read_csv() if "--csv" in sys.argv[1:] else images()
    except (ParquetEngineMissing, FileNotFoundError) as error:
        sys.exit(str(error))
    print(json.dumps({
        "rows": len(frame),
        "dtypes": {column: str(dtype) for column, dtype in frame.dtypes.items()},
        "non_null": {column: int(frame[column].notna().sum()) for column in frame.columns},
        "collections": ${collections ? 'True' : 'False'},
    }))`;
}
