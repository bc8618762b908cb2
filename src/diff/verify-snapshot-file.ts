/**
 * Checking a snapshot's data file against the manifest beside it before it is read: its size, then its sha256 (a
 * flipped byte would otherwise reach parquet-wasm, which can panic on it), and its rows once a reader knows them. A
 * file no img-etl manifest lists (a data file copied elsewhere, a run's pending folder) has nothing to be checked
 * against. Every reader of snapshot files (diff, report, files, the drift of a run) checks through here.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { FileDigest } from '../load/file-digest.js';
import { FILE_NAMES } from '../run/formats.js';
import { readManifest } from '../run/publish-folder.js';
import { DiffError } from './diff-error.js';

/** What a manifest records of one of its files. */
export interface ListedFile {
  /** The manifest that lists it. */
  manifest: string;
  rows: number;
  bytes: number;
  sha256: string;
}

/**
 * The manifest's record of the data file at `path`, once its size and sha256 were found equal to it; undefined when
 * no img-etl manifest beside it lists the file. A DiffError naming the file, what the manifest gives and what was
 * found when they differ.
 */
export async function verifySnapshotFile(path: string): Promise<ListedFile | undefined> {
  const listed = await listedFile(path);
  if (listed === undefined) return undefined;
  let found: { bytes: number; sha256?: string };
  try {
    found = { bytes: (await stat(path)).size };
    if (found.bytes === listed.bytes) found = await digestOf(path);
  } catch (cause) {
    const why = `diff: cannot read ${path}: ${cause instanceof Error ? cause.message : String(cause)}`;
    throw new DiffError({ code: 'DIFF_UNREADABLE', message: why, cause });
  }
  if (found.bytes !== listed.bytes) throw mismatch(path, listed, `${listed.bytes} bytes`, `${found.bytes} bytes`);
  if (found.sha256 !== listed.sha256)
    throw mismatch(path, listed, `sha256 ${listed.sha256}`, `sha256 ${String(found.sha256)}`);
  return listed;
}

/** Throws a DiffError when a reader found `rows` rows in a file its manifest (`listed`) gives another number for. */
export function checkListedRows(path: string, listed: ListedFile | undefined, rows: number): void {
  if (listed !== undefined && rows !== listed.rows) throw mismatch(path, listed, `${listed.rows} rows`, `${rows} rows`);
}

function mismatch(path: string, listed: ListedFile, says: string, found: string): DiffError {
  return new DiffError({
    code: 'DIFF_MISMATCH',
    message: `diff: ${path} does not match its manifest: ${listed.manifest} gives ${says}, the file has ${found}`,
  });
}

/**
 * The manifest's record of the data file at `path` (unchecked), or undefined when no img-etl manifest beside it lists
 * it; a DiffError when the manifest lists it without its rows, bytes and sha256.
 */
export async function listedFile(path: string): Promise<ListedFile | undefined> {
  const manifest = join(dirname(path), FILE_NAMES.manifest);
  const files = (await readManifest(manifest))?.files as Record<string, unknown>[] | undefined;
  const entry = files?.find((f) => f['name'] === basename(path));
  if (entry === undefined) return undefined;
  const { rows, bytes, sha256 } = entry;
  if (typeof rows !== 'number' || typeof bytes !== 'number' || typeof sha256 !== 'string')
    throw new DiffError({
      code: 'DIFF_MISMATCH',
      message: `diff: ${manifest} lists ${basename(path)} without its rows, bytes and sha256: it cannot be checked`,
    });
  return { manifest, rows, bytes, sha256 };
}

async function digestOf(path: string): Promise<{ bytes: number; sha256: string }> {
  const digest = new FileDigest();
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) digest.update(chunk as Buffer);
  return digest.digest();
}
