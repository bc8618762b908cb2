/**
 * The files table: one row per selected file (see FileRow), in the formats a run asks for (files.parquet by default;
 * written by write-files-tables.ts), and read back by the next run to skip what it holds as verified.
 */
import { readdir, rm, stat } from 'node:fs/promises';
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
import { isAlive } from '../load/file-system/process-identity.js';
import type { Format } from '../snapshot/formats.js';
import type { FileRow } from './file-status.js';

/** The table's file name in the output folder, in each format. */
export const FILES_TABLES: Readonly<Record<Format, string>> = {
  parquet: 'files.parquet',
  arrow: 'files.arrow',
  csv: 'files.csv',
};

const TEXT = (): DataType => new Utf8();
/** The columns in order: name, Arrow type, nullable. */
export const FILE_COLUMNS: readonly [keyof FileRow, () => DataType, boolean][] = [
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

/** The table's Arrow schema, with `metadata` (the snapshot read, the service). */
export function filesSchema(metadata: Record<string, string>): Schema {
  const fields = FILE_COLUMNS.map(([name, type, nullable]) => new Field(name, type(), nullable));
  return new Schema(fields, new Map(Object.entries(metadata)));
}

/** A page of rows as an Arrow record batch of the table's schema. */
export function fileBatch(schema: Schema, rows: readonly FileRow[]): RecordBatch {
  const children = FILE_COLUMNS.map(([name], k) => {
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
 * Removes the temporary tables a killed run left (`.files.parquet.tmp-<pid>-<random>`, see AtomicFile, and the same of
 * files.arrow and files.csv) whose process is gone; a live run's are left alone.
 */
export async function removeStaleTables(dir: string): Promise<void> {
  const prefixes = Object.values(FILES_TABLES).map((name) => `.${name}.tmp-`);
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const prefix = prefixes.find((p) => name.startsWith(p));
    if (prefix === undefined) continue;
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
 * What an earlier run's table holds as verified, by path (the folder joined to the table's `path`): its files.parquet
 * or files.arrow, the newer of the two; empty when there is neither (files.csv alone is not read: the files on disk are
 * checked again) or it cannot be read.
 */
export async function readVerifiedFiles(dir: string): Promise<Map<string, VerifiedFile>> {
  const verified = new Map<string, VerifiedFile>();
  const columns = ['path', 'bytes', 'sha256', 'status', 'id', 'link', 'mtime_ns'];
  const written = async (name: string) => ({ name, at: (await stat(join(dir, name)).catch(() => undefined))?.mtimeMs });
  const tables = await Promise.all([FILES_TABLES.parquet, FILES_TABLES.arrow].map(written));
  const newest = tables.filter((t) => t.at !== undefined).sort((a, b) => b.at! - a.at!)[0];
  if (newest === undefined) return verified;
  let table;
  try {
    table = await readSnapshotRows(join(dir, newest.name), { columns });
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
