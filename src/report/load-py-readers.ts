/**
 * The readers of load.py, the same for every snapshot (what differs, the tables' files, columns, dtypes and
 * categories, is TABLES: load-py.ts): one function per format giving a frame of a table's dtypes, one per table
 * choosing the format, and the command line.
 */
import { JOIN_SUFFIX } from '../schema/loader-names.js';
import { FILE_NAMES } from '../snapshot/formats.js';

/** The Python text of the readers, after TABLES and JOIN. */
export function pyReaders(): string {
  return [pyTyping(), pyFormats(), pyTables(), pyMain()].join('\n\n\n');
}

/** How a frame read from any format gets the table's dtypes. */
function pyTyping(): string {
  return `class ParquetEngineMissing(ImportError):
    """pandas reads Parquet and Arrow with pyarrow (Parquet also with fastparquet), and neither is installed."""


def _has(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def _pandas_2():
    return int(pd.__version__.split(".")[0]) >= 2


def _nullable():
    """The argument of read_parquet for nullable dtypes: dtype_backend from pandas 2, use_nullable_dtypes in 1.5."""
    return {"dtype_backend": "numpy_nullable"} if _pandas_2() else {"use_nullable_dtypes": True}


def _utc(series):
    """UTC timestamps: microseconds as written from pandas 2 (datetime64[us, UTC]), nanoseconds in pandas 1.5."""
    if not _pandas_2():
        return pd.to_datetime(series, utc=True)
    if pd.api.types.is_datetime64_any_dtype(series):
        return pd.to_datetime(series, utc=True).astype("datetime64[us, UTC]")
    # The CSV writes a year after 9999 or before 0000 as +YYYYYY or -YYYYYY, which pandas does not parse: such a
    # value is read in a year a number of 400-year cycles (146097 days each, the calendar's period) away, then moved.
    text = series.astype("string")
    extended = text.str.match(r"[+-]\\d{6}-").fillna(False).astype(bool)
    typed = pd.to_datetime(text.where(~extended), utc=True, format="ISO8601").astype("datetime64[us, UTC]")
    if extended.any():
        import numpy as np

        micros = []
        for value in text[extended]:
            year = int(value[:7])
            cycles = (year - 2000) // 400
            moved = pd.to_datetime(f"{year - 400 * cycles:04d}{value[7:]}", utc=True, format="ISO8601")
            micros.append(int(moved.asm8.astype("datetime64[us]").view("i8")) + cycles * 146_097 * 86_400_000_000)
        typed[extended] = pd.to_datetime(np.array(micros, dtype="datetime64[us]"), utc=True)
    return typed


def _category(series, values, column):
    """A category column: the snapshot's values when TABLES gives them, else the values read, sorted."""
    text = series.astype("string")
    if values is None:
        values = sorted(text.dropna().unique())
    typed = text.astype(pd.CategoricalDtype(values))
    if typed.isna().sum() != text.isna().sum():
        raise ValueError(f"load.py: {column} holds a value that is not one of the snapshot's categories")
    return typed


def _typed(frame, table, csv=False):
    """The frame with the table's dtypes, its columns in the table's order; the categories as the CSV has them."""
    spec = TABLES[table]
    frame = frame.astype(spec["dtypes"])
    for column in spec["timestamps"]:
        frame[column] = _utc(frame[column])
    values = spec.get("csv_category_values", spec["category_values"]) if csv else spec["category_values"]
    for column in spec["categories"]:
        frame[column] = _category(frame[column], values.get(column), column)
    return frame[spec["columns"]]`;
}

/** One reader per format. */
function pyFormats(): string {
  return `def _path(path, table, format):
    return Path(path) if path is not None else HERE / TABLES[table]["files"][format]


def _need_pyarrow(path, engines=("pyarrow",)):
    if not any(_has(engine) for engine in engines):
        what = "Parquet" if str(path).endswith(".parquet") else "Arrow"
        raise ParquetEngineMissing(
            f"load.py: {path} is {what}, which pandas reads with {' or '.join(engines)}, and "
            f"{'neither is' if len(engines) > 1 else 'it is not'} installed here: install one (pip install pyarrow), "
            "or read a snapshot written with --to csv (read_csv())"
        )


def read_parquet(path=None, table="images"):
    """A table's Parquet file (default this folder's images.parquet) with its dtypes; needs pyarrow or fastparquet."""
    path = _path(path, table, "parquet")
    _need_pyarrow(path, ("pyarrow", "fastparquet"))
    return _typed(pd.read_parquet(path, **_nullable()), table)


def read_arrow(path=None, table="images"):
    """A table's Arrow IPC file (default this folder's images.arrow) with its dtypes; needs pyarrow."""
    path = _path(path, table, "arrow")
    _need_pyarrow(path)
    return _typed(pd.read_feather(path, **({"dtype_backend": "numpy_nullable"} if _pandas_2() else {})), table)


def read_csv(path=None, table="images"):
    """A table's CSV file (default this folder's images.csv): only an empty field is null, floats exactly as written.

    A float written NaN (which only a pipeline's derived column holds) is missing, as pandas reads it from Parquet."""
    spec = TABLES[table]
    text = {column: "string" for column in spec["timestamps"] + spec["categories"]}
    na = {column: ["", "NaN"] if spec["dtypes"].get(column) == "Float64" else [""] for column in spec["columns"]}
    frame = pd.read_csv(
        _path(path, table, "csv"),
        keep_default_na=False,
        na_values=na,
        float_precision="round_trip",
        dtype={**spec["dtypes"], **text},
    )
    return _typed(frame, table, csv=True)`;
}

/** images(), collections() and their join: whichever file the folder has. */
function pyTables(): string {
  return `READERS = {"parquet": read_parquet, "arrow": read_arrow, "csv": read_csv}


def _source(folder, table, format=None):
    """The file a table is read from: Parquet, else Arrow, when pandas can read them, else CSV; or the one asked."""
    files = {f: Path(folder) / name for f, name in TABLES[table]["files"].items()}
    present = [f for f in ("parquet", "arrow", "csv") if files[f].exists() and format in (None, f)]
    readable = [f for f in present if f == "csv" or _has("pyarrow") or (f == "parquet" and _has("fastparquet"))]
    if not present:
        names = ", ".join(files[f].name for f in ([format] if format else files))
        raise FileNotFoundError(f"load.py: {folder} has no {names}")
    return (readable or present)[0], files[(readable or present)[0]]


def read_table(table, folder=HERE, format=None):
    """A table of the snapshot in \`folder\`, from the file _source picks; frame.attrs["source"] names it."""
    format, path = _source(folder, table, format)
    frame = READERS[format](path, table)
    frame.attrs["source"] = path.name
    return frame


def images(folder=HERE, format=None):
    """The images table (${FILE_NAMES.parquet}, ${FILE_NAMES.arrow} or ${FILE_NAMES.csv}); format forces one."""
    return read_table("images", folder, format)


def collections(folder=HERE, format=None):
    """The collections table, where the snapshot has it."""
    return read_table("collections", folder, format)


def images_with_collection(folder=HERE, format=None):
    """Each image with its collection's columns (suffixed ${JOIN_SUFFIX} where names clash)."""
    return images(folder, format).merge(
        collections(folder, format), how="left", suffixes=("", ${JSON.stringify(JOIN_SUFFIX)}), **JOIN
    )`;
}

/** What `python3 load.py [--csv] [--json]` prints: in one line what it read, or the dtypes as JSON. */
function pyMain(): string {
  return `def _main(argv):
    format = "csv" if "--csv" in argv else None
    frames = {}
    try:
        frames["images"] = images(format=format)
        if any((HERE / name).exists() for name in TABLES["collections"]["files"].values()):
            frames["collections"] = collections(format=format)
    except (ParquetEngineMissing, FileNotFoundError) as error:
        sys.exit(str(error))
    if "--json" in argv:
        print(json.dumps({name: {
            "source": frame.attrs["source"],
            "rows": len(frame),
            "dtypes": {column: str(dtype) for column, dtype in frame.dtypes.items()},
            "non_null": {column: int(frame[column].notna().sum()) for column in frame.columns},
        } for name, frame in frames.items()}))
    else:
        read = [f"{name} {len(frame)} rows from {frame.attrs['source']}" for name, frame in frames.items()]
        print(f"load.py: pandas {pd.__version__} read {', '.join(read)}")


if __name__ == "__main__":
    _main(sys.argv[1:])`;
}
