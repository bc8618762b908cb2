/**
 * Finding the data file of a snapshot from what a user names: a snapshot folder, a `--snapshot` base folder or its
 * `latest` pointer (a symlink, or the one-line file written where symlinks are unavailable), or a data file itself.
 * Of the data files a folder's manifest lists (all of them without one: a folder of data files), Parquet is preferred
 * to Arrow IPC when a folder holds both: it is a tenth of the bytes to read. Arrow IPC reads with
 * less memory and CPU (parquet-wasm decodes a whole row group at a time); name images.arrow to use it.
 */
import { lstat, realpath, stat } from 'node:fs/promises';
import { fileSystemReason } from '../load/file-system/file-system-error.js';
import { isFolder } from '../load/file-system/path-kind.js';
import { openRegularFile, whyUnreadable } from '../load/file-system/read-regular-file.js';
import { basename, dirname, join } from 'node:path';
import { IMAGES } from '../schema/columns.js';
import type { Table } from '../schema/table.js';
import { FILE_NAMES, TABLES } from './formats.js';
import { readManifest } from './read-manifest.js';
import { latestSnapshot } from './snapshot-names.js';
import { DiffError } from './diff-error.js';

/** The formats a snapshot can be read from. */
export type SnapshotFileFormat = 'parquet' | 'arrow';

/** A data file found, CSV included. */
type Resolved = { path: string; format: SnapshotFileFormat | 'csv' };

/** A snapshot's data file: its path, and how it is encoded. */
type SnapshotFile = Resolved & { format: SnapshotFileFormat };

// Following `latest` more than this many times means the pointers go round in a circle.
const MAX_HOPS = 8;

/**
 * The data file of `table` (default the images) behind `path` (folder, `latest` pointer or file); a DiffError naming
 * `path` when there is none. A data file named directly is the images', unless it is named as another table's file
 * (`collections.parquet`): one of another table than `table` is refused, never read as it.
 */
export async function resolveSnapshotFile(path: string, table: Table = IMAGES): Promise<SnapshotFile> {
  return (await resolve(path, table, false)) as SnapshotFile;
}

/** resolveSnapshotFile, or the CSV file when the snapshot has no Parquet or Arrow file (`format` is then `csv`). */
export async function resolveSnapshotFileOrCsv(path: string, table: Table = IMAGES): Promise<Resolved> {
  return resolve(path, table, true);
}

/**
 * `path` as the snapshot it names now: a folder (one reached through `latest` pointers included) as its real path, so
 * that every table read from the result is of that one snapshot, however `latest` moves meanwhile; a data file named
 * directly, and a path that names no snapshot (reading it says why), as they are.
 */
export async function pinSnapshot(path: string): Promise<string> {
  const named = await stat(path).catch(() => undefined);
  if (named === undefined || (named.isFile() && basename(path) !== 'latest')) return path;
  const found = await resolve(path, IMAGES, true).catch(() => undefined);
  return found === undefined ? path : realpath(dirname(found.path)).catch(() => path);
}

/** One step of the search: the file found, or the path to look at next (a `latest` pointer's target). */
type Step = { file: Resolved } | { next: string };

async function resolve(path: string, table: Table, csvToo: boolean): Promise<Resolved> {
  let current = path;
  for (let hop = 0; hop <= MAX_HOPS; hop++) {
    const kind = await kindOf(current, current);
    const step =
      kind === 'file' ? await fromFile(path, current, table, csvToo) : await fromFolder(path, current, table, csvToo);
    if ('file' in step) return step.file;
    current = step.next;
  }
  throw DiffError.of('DIFF_NOT_SNAPSHOT', `diff: ${path}: more than ${MAX_HOPS} 'latest' pointers in a row`);
}

/** A file `current` (reached from `path`): a `latest` pointer file to follow, else the images' data file itself. */
async function fromFile(path: string, current: string, table: Table, csvToo: boolean): Promise<Step> {
  const pointed = basename(current) === 'latest' ? await followLatestFile(current) : undefined;
  if (pointed !== undefined) return { next: pointed };
  // A data file named directly is the images' unless it is named as another table's (a snapshot's collections.parquet).
  const named = TABLES.find((t) => [t.files.parquet, t.files.arrow, t.files.csv].includes(basename(current))) ?? IMAGES;
  if (named !== table) {
    const why =
      named === IMAGES
        ? `diff: ${path} is a data file, not a snapshot folder: it holds no ${table.name} table`
        : `diff: ${path} holds the ${named.name} table, not the ${table.name}; ` +
          `name the snapshot folder or its ${table.files.parquet}`;
    throw DiffError.of('DIFF_NOT_SNAPSHOT', why);
  }
  if (csvToo && current.endsWith('.csv')) return { file: { path: current, format: 'csv' } };
  return { file: { path: current, format: await sniffFormat(current) } };
}

/**
 * A folder `current` (reached from `path`): a snapshot folder's data file (Parquet first, of those its manifest lists
 * when it has one), or a `--snapshot` base folder's `latest` to follow; a DiffError naming `path` when it is neither.
 */
async function fromFolder(path: string, current: string, table: Table, csvToo: boolean): Promise<Step> {
  const names = table.files;
  const listed = await listedNames(current);
  for (const format of ['parquet', 'arrow'] as const) {
    const file = join(current, names[format]);
    if (listed !== undefined && !listed.has(names[format])) continue; // someone's file: its manifest cannot check it
    if ((await kindOf(file, file, true)) === 'file') return { file: { path: file, format } };
  }
  const latest = join(current, 'latest');
  // a `--snapshot` base folder: its newest snapshot
  if ((await lstat(latest).catch(() => undefined)) !== undefined) return { next: latest };
  const csv = (await kindOf(join(current, names.csv), path, true)) === 'file';
  if (csv && csvToo) return { file: { path: join(current, names.csv), format: 'csv' } };
  throw DiffError.of(
    'DIFF_NOT_SNAPSHOT',
    csv
      ? `diff: ${path} holds only ${names.csv}, and ${names.parquet} or ${names.arrow} is needed ` +
          '(snapshot with --to parquet or --to arrow)'
      : `diff: ${path} holds no ${names.parquet} or ${names.arrow}`,
  );
}

/** The names of the files the img-etl manifest in `folder` lists, or undefined without one. */
async function listedNames(folder: string): Promise<Set<string> | undefined> {
  const manifest = await readManifest(join(folder, FILE_NAMES.manifest));
  return manifest === undefined ? undefined : new Set(manifest.files.map((f) => f.name));
}

/** 'file', 'folder' or 'missing' (with `optional`; otherwise a missing path is an error naming `shown`). */
async function kindOf(path: string, shown: string, optional = false): Promise<'file' | 'folder' | 'missing'> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) return 'folder';
    if (info.isFile()) return 'file';
    throw DiffError.of('DIFF_NOT_SNAPSHOT', `diff: ${shown} is neither a file nor a folder`);
  } catch (cause) {
    if (cause instanceof DiffError) throw cause;
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      if (optional) return 'missing';
      // A dangling `latest` symlink is a missing snapshot too; say where it points.
      const link = (await lstat(path).catch(() => undefined))?.isSymbolicLink() === true;
      throw DiffError.of(
        'DIFF_NOT_FOUND',
        link ? `diff: ${shown} points to a snapshot that does not exist` : `diff: ${shown} does not exist`,
        cause,
      );
    }
    throw DiffError.of('DIFF_UNREADABLE', `diff: cannot read ${shown}: ${fileSystemReason(cause)}`, cause);
  }
}

/** The snapshot folder a `latest` pointer file names (written where symlinks are unavailable), if it names one. */
async function followLatestFile(path: string): Promise<string | undefined> {
  const name = await latestSnapshot(dirname(path));
  if (name === undefined || !/^[^/\\\0\n]{1,255}$/.test(name)) return undefined;
  const target = join(dirname(path), name);
  return (await isFolder(target)) ? target : undefined;
}

/**
 * Parquet or Arrow IPC, by the file's first bytes (`PAR1`; `ARROW1` for the file format, 0xFFFFFFFF for the stream
 * format).
 */
async function sniffFormat(path: string): Promise<SnapshotFileFormat> {
  const head = Buffer.alloc(8);
  let read: number;
  try {
    const { handle } = await openRegularFile(path, { followLink: true });
    try {
      ({ bytesRead: read } = await handle.read(head, 0, head.length, 0));
    } finally {
      await handle.close();
    }
  } catch (cause) {
    throw DiffError.of('DIFF_UNREADABLE', `diff: ${whyUnreadable(path, cause)}`, cause);
  }
  if (read >= 4 && head.toString('latin1', 0, 4) === 'PAR1') return 'parquet';
  if (read >= 6 && head.toString('latin1', 0, 6) === 'ARROW1') return 'arrow';
  if (read >= 4 && head.readUInt32LE(0) === 0xffffffff) return 'arrow';
  // Said without naming diff: files and the report's drift read snapshots through here too.
  const hint = path.endsWith('.csv') ? ' (snapshot with --to parquet or --to arrow)' : '';
  throw DiffError.of('DIFF_NOT_SNAPSHOT', `diff: ${path} is neither a parquet nor an arrow file${hint}`);
}
