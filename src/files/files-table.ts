/**
 * files.parquet: one row per selected file (see FileRow; `link` and `status` dictionary-encoded in the Parquet file),
 * written with parquet-wasm under a temporary name and renamed
 * into place once whole (AtomicFile), and read back by the next run to skip what it holds as verified.
 */
import { readdir, rm } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import {
  Field,
  Int64,
  RecordBatch,
  Schema,
  Struct,
  Utf8,
  makeData,
  vectorFromArray,
  type DataType,
} from 'apache-arrow';
import { readSnapshotRows } from '../snapshot/read-snapshot-rows.js';
import { AtomicFile } from '../load/atomic-file.js';
import { writeParquetWasm } from '../load/parquet-wasm-writer.js';
import { isAlive } from '../load/process-identity.js';
import type { SinkResult } from '../load/sink-result.js';
import type { FileRow } from './file-status.js';

/** The table's file name in the output folder. */
export const FILES_TABLE = 'files.parquet';

const TEXT = (): DataType => new Utf8();
const COLUMNS: readonly [keyof FileRow, () => DataType, boolean][] = [
  ['id', () => new Int64(), false],
  ['collection_id', () => new Int64(), true],
  ['link', TEXT, false],
  ['url', TEXT, true],
  ['path', TEXT, true],
  ['bytes', () => new Int64(), true],
  ['sha256', TEXT, true],
  ['mtime_ns', () => new Int64(), true],
  ['status', TEXT, false],
  ['reason', TEXT, true],
];
const SCHEMA = new Schema(COLUMNS.map(([name, type, nullable]) => new Field(name, type(), nullable)));

/** Writes the rows of `source` (batches) to `<dir>/files.parquet`, publishing it once all are written. */
export async function writeFilesTable(
  source: AsyncIterable<FileRow[]>,
  dir: string,
  metadata: Record<string, string> = {},
): Promise<SinkResult> {
  const file = await AtomicFile.create(join(dir, FILES_TABLE));
  try {
    const schema = new Schema(SCHEMA.fields, new Map(Object.entries(metadata)));
    let rows = 0;
    const batches = async function* (): AsyncGenerator<RecordBatch> {
      for await (const page of source) {
        rows += page.length;
        if (page.length > 0) yield fileBatch(schema, page);
      }
    };
    await writeParquetWasm(batches(), file, {
      rowGroupSize: 25_000,
      metadata,
      empty: fileBatch(schema, []),
      dictionaryColumns: ['link', 'status'],
    });
    return { format: 'parquet', path: file.path, rows, ...(await file.commit()) };
  } catch (err) {
    await file.abort();
    throw err;
  }
}

/** A page of rows as an Arrow record batch of the table's schema. */
function fileBatch(schema: Schema, rows: readonly FileRow[]): RecordBatch {
  const children = COLUMNS.map(([name], k) => {
    const type = schema.fields[k]!.type as DataType;
    const values = rows.map((row) => {
      const v = row[name];
      return v === null || typeof v !== 'number' || !(type instanceof Int64) ? v : BigInt(v);
    });
    return vectorFromArray(values as never[], type).data[0]!;
  });
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children }),
  );
}

/**
 * Removes the temporary files.parquet a killed run left (`.files.parquet.tmp-<pid>-<random>`, see AtomicFile) whose
 * process is gone; a live run's is left alone.
 */
export async function removeStaleTables(dir: string): Promise<void> {
  const prefix = `.${FILES_TABLE}.tmp-`;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) continue;
    await rm(join(dir, name), { force: true });
  }
}

/** A file an earlier run verified: its size, SHA-256 and mtime, and the image and link it is the file of. */
export interface VerifiedFile {
  bytes: number;
  sha256: string;
  /** Its modification time then, in nanoseconds; undefined when the table does not record it (an older table). */
  mtimeNs: bigint | undefined;
  id: number;
  link: string;
}

/**
 * What an earlier run's files.parquet holds as verified, by path (the folder joined to the table's `path`); empty
 * when there is none or it cannot be read.
 */
export async function readVerifiedFiles(dir: string): Promise<Map<string, VerifiedFile>> {
  const verified = new Map<string, VerifiedFile>();
  const columns = ['path', 'bytes', 'sha256', 'status', 'id', 'link', 'mtime_ns'];
  let table;
  try {
    table = await readSnapshotRows(join(dir, FILES_TABLE), { columns });
  } catch {
    return verified; // no table, or one that does not read: every file on disk is checked again instead
  }
  try {
    for await (const batch of table.batches) {
      const [path, bytes, sha, status, id, link] = columns.map((name) => batch.getChild(name));
      if (path == null || bytes == null || sha == null || status == null || id == null || link == null) break;
      const mtime = batch.getChild('mtime_ns'); // absent from a table of an older img-etl
      for (let i = 0; i < batch.numRows; i++) {
        if (status.get(i) !== 'ok' || path.get(i) === null) continue;
        // relative to the folder; a table of an older img-etl gave it as --out did (absolute, or from its cwd)
        const at = path.get(i) as string;
        verified.set(isAbsolute(at) ? at : join(dir, at), {
          bytes: Number(bytes.get(i)),
          sha256: sha.get(i) as string,
          mtimeNs: (mtime?.get(i) ?? undefined) as bigint | undefined,
          id: Number(id.get(i)),
          link: link.get(i) as string,
        });
      }
    }
  } catch {
    verified.clear();
  } finally {
    await table.close();
  }
  return verified;
}
