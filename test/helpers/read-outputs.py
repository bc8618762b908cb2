"""Reads img-etl's output files with one Python reader and compares every value with what the test expects.

Run by test/load/readers.e2e.test.ts, with the test venv's Python (pandas 3, pyarrow, polars, duckdb) or Debian's (pandas
1.5, no pyarrow). stdin: {"jobs": [...], "expected": {name: {key: [values in column order]}}}; each job names a reader,
a format, the file (or the snapshot folder, for the loaders), the table's columns and their kinds, and the expected
rows it must equal. stdout: per job its rows, the first differences and each column's type as the reader gives it.

Values are compared in one canonical form: integers and timestamps (epoch microseconds, UTC) as decimal text, floats
as floats (-0.0 kept), booleans, text, and None for null.
"""
import datetime as dt
import json
import math
import sys

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def canonical(value, kind):
    if value is None:
        return None
    try:
        if value != value:  # NaN, NaT
            return None
    except (TypeError, ValueError):
        pass
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    if kind == "timestamp":
        if hasattr(value, "tz_convert"):  # a pandas Timestamp, of nanoseconds (pandas 1.5) or microseconds
            import pandas as pd

            if str(value.tz) != "UTC":
                raise ValueError(f"timestamp {value!r} is not in UTC")
            return str((value - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(1, "us"))
        if value.tzinfo is None or value.utcoffset() != dt.timedelta(0):
            raise ValueError(f"timestamp {value!r} is not in UTC")
        return str((value - EPOCH) // dt.timedelta(microseconds=1))
    if kind == "int64":
        return str(int(value))
    if kind == "float64":
        return float(value)
    if kind == "boolean":
        return bool(value)
    return str(value)


# --- readers: each gives (columns as lists of values by name, column types as text) ----------------------------------

def pyarrow_table(job):
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    if job["format"] == "parquet":
        return pq.read_table(job["path"])
    if job["format"] == "arrow":
        with pa.ipc.open_file(job["path"]) as reader:
            return reader.read_all()
    types = {
        "int64": pa.int64(), "float64": pa.float64(), "boolean": pa.bool_(),
        "timestamp": pa.timestamp("us", tz="UTC"), "category": pa.dictionary(pa.int32(), pa.string()),
    }
    options = pcsv.ConvertOptions(
        column_types={c: types.get(k, pa.string()) for c, k in job["kinds"].items()},
        null_values=[""], strings_can_be_null=True, quoted_strings_can_be_null=False,
        true_values=["true"], false_values=["false"],
    )
    return pcsv.read_csv(job["path"], convert_options=options)


def read_pyarrow(job):
    table = pyarrow_table(job)
    types = {f.name: str(f.type) for f in table.schema}
    if job["format"] == "arrow":
        types.update(arrow_file_facts(job["path"]))
    return {c: table.column(c).to_pylist() for c in job["kinds"]}, types


def arrow_file_facts(path):
    """The record batches of an Arrow IPC file, and its dictionary columns with a value first seen after batch 1."""
    import pyarrow as pa

    with pa.ipc.open_file(path) as reader:
        batches = [reader.get_batch(i) for i in range(reader.num_record_batches)]
    grown = []
    for i, field in enumerate(batches[0].schema):
        if pa.types.is_dictionary(field.type):
            first = set(batches[0].column(i).to_pylist())
            if any(set(b.column(i).to_pylist()) - first for b in batches[1:]):
                grown.append(field.name)
    return {"(record batches)": str(len(batches)), "(grown dictionaries)": ",".join(grown)}


def read_load_py(job):
    """The snapshot folder's load.py: its read_table, in the format asked ("auto": whichever it picks)."""
    sys.path.insert(0, job["path"])
    import load

    frame = load.read_table(job["table"], job["path"], None if job["format"] == "auto" else job["format"])
    return pandas_columns(frame, job), {"source": frame.attrs["source"], **{c: str(t) for c, t in frame.dtypes.items()}}


def read_load_py_join(job):
    """load.py's images_with_collection: each image's row with its collection's columns."""
    sys.path.insert(0, job["path"])
    import load

    frame = load.images_with_collection(job["path"], None if job["format"] == "auto" else job["format"])
    return pandas_columns(frame, job), {c: str(t) for c, t in frame.dtypes.items()}


def read_pandas(job):
    """pandas on its own (files.parquet and its kin, which have no load.py): nullable dtypes."""
    import pandas as pd

    nullable = {"dtype_backend": "numpy_nullable"}
    if job["format"] == "parquet":
        frame = pd.read_parquet(job["path"], **nullable)
    elif job["format"] == "arrow":
        frame = pd.read_feather(job["path"], **nullable)
    else:
        dtypes = {"int64": "Int64", "float64": "Float64", "boolean": "boolean"}
        frame = pd.read_csv(
            job["path"], keep_default_na=False, na_values=[""], float_precision="round_trip",
            dtype={c: dtypes.get(k, "string") for c, k in job["kinds"].items()},
        )
    return pandas_columns(frame, job), {c: str(t) for c, t in frame.dtypes.items()}


def pandas_columns(frame, job):
    return {c: frame[c].astype(object).tolist() for c in job["kinds"]}


def read_polars(job):
    import polars as pl

    if job["format"] == "parquet":
        frame = pl.read_parquet(job["path"])
    elif job["format"] == "arrow":
        frame = pl.read_ipc(job["path"])
    else:
        types = {"int64": pl.Int64, "float64": pl.Float64, "boolean": pl.Boolean}
        frame = pl.read_csv(
            job["path"], schema_overrides={c: types.get(k, pl.String) for c, k in job["kinds"].items()},
            infer_schema=False,
        )
        stamps = [c for c, k in job["kinds"].items() if k == "timestamp"]
        frame = frame.with_columns(
            pl.col(stamps).str.to_datetime("%Y-%m-%dT%H:%M:%S%.fZ", time_unit="us", time_zone="UTC")
        )
    return {c: frame[c].to_list() for c in job["kinds"]}, {c: str(t) for c, t in frame.schema.items()}


def read_duckdb(job):
    import duckdb

    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    if job["format"] == "parquet":
        source = f"read_parquet('{job['path']}')"
    elif job["format"] == "arrow":
        import pyarrow as pa

        with pa.ipc.open_file(job["path"]) as reader:
            arrow_table = reader.read_all()  # noqa: F841 (DuckDB reads the Python variable by its name)
        source = "arrow_table"
    elif job["format"] == "load.sql":
        con.execute(f"SET file_search_path = '{job['path']}'")
        with open(f"{job['path']}/load.sql", encoding="utf-8") as f:
            con.execute(f.read())
        source = job["table"]
    else:
        types = {"int64": "BIGINT", "float64": "DOUBLE", "boolean": "BOOLEAN", "timestamp": "TIMESTAMPTZ"}
        columns = ", ".join(f"'{c}': '{types.get(k, 'VARCHAR')}'" for c, k in job["kinds"].items())
        source = f"read_csv('{job['path']}', header = true, auto_detect = false, nullstr = '', columns = {{{columns}}})"
    relation = con.sql(f"SELECT * FROM {source}")
    rows = relation.fetchall()
    names = relation.columns
    types = dict(zip(names, (str(t) for t in relation.types)))
    return {c: [row[names.index(c)] for row in rows] for c in job["kinds"]}, types


READERS = {
    "pyarrow": read_pyarrow, "load.py": read_load_py, "load.py join": read_load_py_join, "pandas": read_pandas,
    "polars": read_polars, "duckdb": read_duckdb,
}


def key_of(row, key):
    return "/".join(str(row[k]) for k in key)


def run(job, expected):
    columns, types = READERS[job["reader"]](job)
    kinds = job["kinds"]
    names = list(kinds)
    values = {c: [canonical(v, kinds[c]) for v in columns[c]] for c in names}
    rows = [{c: values[c][i] for c in names} for i in range(len(values[names[0]]))]
    differences = []
    seen = set()
    for row in rows:
        key = key_of(row, job["key"])
        seen.add(key)
        want = expected.get(key)
        if want is None:
            differences.append(f"row {key} was not expected")
            continue
        for c, w in zip(names, want):
            got = row[c]
            if kinds[c] == "float64" and w is not None:
                w = -0.0 if w == "-0" else float(w)  # JSON gives 24 for 24.0, and cannot hold -0.0
            same = got == w and type(got) is type(w)
            if isinstance(got, float) and isinstance(w, float):
                same = got == w and math.copysign(1, got) == math.copysign(1, w) or (got != got and w != w)
            if not same:
                differences.append(f"row {key} column {c}: got {got!r}, want {w!r}")
        if len(differences) > 20:
            break
    missing = [k for k in expected if k not in seen]
    if missing:
        differences.append(f"{len(missing)} rows missing, e.g. {missing[:3]}")
    return {"rows": len(rows), "differences": differences[:20], "types": types}


def main():
    spec = json.load(sys.stdin)
    results = {}
    for job in spec["jobs"]:
        try:
            results[job["name"]] = run(job, spec["expected"][job["expected"]])
        except Exception as error:  # the test shows it, naming the job
            results[job["name"]] = {"error": f"{type(error).__name__}: {error}"}
    json.dump(results, sys.stdout)


main()
