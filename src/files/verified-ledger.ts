/**
 * What img-etl files knows of the verified files in an output folder that its files table no longer lists: a run with
 * another `--where` writes a table of its own selection only, and without this record the next run would take a file
 * of the same path and size for the file of whichever image it selects. One JSON line per file, rewritten whole at the
 * end of each run: the files the run's table does not list as `ok` that an earlier run verified and that are still on
 * disk.
 */
import { rm } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { isFile } from '../load/file-system/path-kind.js';
import { readRegularFile } from '../load/file-system/read-regular-file.js';
import { writeTextAtomic } from '../load/file-system/write-text-atomic.js';
import type { VerifiedFile } from './files-table.js';

/** The record's file name in the output folder. */
export const LEDGER = '.img-etl-files.verified.ndjson';

/** One line of the record: a VerifiedFile with its path relative to the folder and its mtime as decimal text. */
type LedgerLine = Omit<VerifiedFile, 'mtimeNs'> & { path: string; mtime_ns: string | null };

/**
 * The verified files the record holds, by path (the folder joined to each line's); empty when there is none or it is
 * not a regular file of at most 256 MiB. A line that does not read is left out: its file is then checked again from
 * disk, as a file no table lists.
 */
export async function readLedger(dir: string): Promise<Map<string, VerifiedFile>> {
  const known = new Map<string, VerifiedFile>();
  const text = await readRegularFile(join(dir, LEDGER), { maxBytes: 256 << 20 }).then(String, () => '');
  for (const line of text.split('\n')) {
    const entry = parsedLine(line);
    if (entry === undefined) continue;
    const mtimeNs = entry.mtime_ns === null ? undefined : BigInt(entry.mtime_ns);
    const { id, link, bytes, sha256 } = entry;
    known.set(join(dir, entry.path), { id, link, bytes, sha256, mtimeNs });
  }
  return known;
}

/**
 * Rewrites the record: the files of `known` (by path) that the run's table does not list as `ok` (`listedOk`) and that
 * are still files on disk; removes it when none is left.
 */
export async function writeLedger(
  dir: string,
  known: ReadonlyMap<string, VerifiedFile>,
  listedOk: ReadonlySet<string>,
): Promise<void> {
  const lines: string[] = [];
  for (const [path, file] of known) {
    if (listedOk.has(path) || !(await isFile(path))) continue;
    const { id, link, bytes, sha256 } = file;
    const mtime = file.mtimeNs === undefined ? null : String(file.mtimeNs);
    lines.push(JSON.stringify({ path: relative(dir, path), id, link, bytes, sha256, mtime_ns: mtime }));
  }
  if (lines.length === 0) await rm(join(dir, LEDGER), { force: true });
  else await writeTextAtomic(join(dir, LEDGER), lines.join('\n') + '\n');
}

/** A line of the record, or undefined when it is not one (empty, not JSON, a field of the wrong type). */
function parsedLine(line: string): LedgerLine | undefined {
  let value: Partial<LedgerLine>;
  try {
    value = JSON.parse(line) as Partial<LedgerLine>;
  } catch {
    return undefined;
  }
  const { path, id, link, bytes, sha256, mtime_ns: mtime } = value ?? {};
  if (typeof path !== 'string' || path === '' || isAbsolute(path) || path.split(/[\\/]/).includes('..'))
    return undefined;
  if (!Number.isSafeInteger(id) || typeof link !== 'string' || !Number.isSafeInteger(bytes)) return undefined;
  if (typeof sha256 !== 'string' || !(mtime === null || (typeof mtime === 'string' && /^\d+$/.test(mtime))))
    return undefined;
  return value as LedgerLine;
}
