/**
 * A snapshot folder's manifest read back: img-etl's own, with only img-etl's own file names in its list, so that a
 * manifest edited by hand never makes a run move or delete anything else.
 */
import { readRegularFile } from '../load/file-system/read-regular-file.js';
import type { TableFiles } from '../schema/table.js';
import { FILE_NAMES, TABLES } from './formats.js';
import { TOOL_NAME } from './tool.js';

/** Every file name img-etl writes in a snapshot folder: each table's, the manifest, the report and the loaders. */
// TableFiles is an interface (no index signature), so Object.values is told the value type through a Record.
const OWN_NAMES = new Set<string>([
  ...Object.values(FILE_NAMES),
  ...TABLES.flatMap((t) => Object.values(t.files as Readonly<Record<keyof TableFiles, string>>)),
]);

/** A file a manifest lists, as far as publishing needs it. */
export interface ManifestEntry {
  name: string;
  format?: unknown;
  bytes?: unknown;
  sha256?: unknown;
}

/** The largest manifest read: one of 13,400 collections read again is some 5 MB. */
const MANIFEST_MAX_BYTES = 256 * 1024 * 1024;

/** A manifest's text, or undefined when there is none or it is not a regular file of at most 256 MiB. */
export async function manifestText(path: string): Promise<string | undefined> {
  return readRegularFile(path, { maxBytes: MANIFEST_MAX_BYTES, followLink: true }).then(String, () => undefined);
}

/** A manifest as read: img-etl's own, with only img-etl's file names in its list. */
export type ReadManifest = { files: ManifestEntry[]; complete?: unknown };

/**
 * A manifest img-etl wrote, or undefined (no file, not JSON, another tool's, not a regular file: a FIFO of someone's
 * named manifest.json is not waited on for ever).
 */
export async function readManifest(path: string): Promise<ReadManifest | undefined> {
  return (await readManifestOrFault(path)).manifest;
}

/**
 * readManifest, with why the regular file at `path` does not read as JSON (cut short, edited, damaged) when it does
 * not: `fault` is undefined for a manifest, for no file there (or a FIFO, a folder) and for another tool's JSON. A
 * reader that took a manifest that does not read for none would read the data files beside it unchecked.
 */
export async function readManifestOrFault(
  path: string,
): Promise<{ manifest: ReadManifest | undefined; fault: string | undefined }> {
  let value: { tool?: unknown; files?: unknown };
  try {
    value = JSON.parse((await manifestText(path)) ?? 'null') as { tool?: unknown; files?: unknown };
  } catch (error) {
    return { manifest: undefined, fault: (error as SyntaxError).message };
  }
  if (typeof value?.tool !== 'string' || !value.tool.startsWith(TOOL_NAME) || !Array.isArray(value.files))
    return { manifest: undefined, fault: undefined };
  // Only img-etl's own file names and plain names of a sink's files (which publish-folder.ts deletes only while
  // they hold the bytes listed): a manifest edited by hand never makes a run move or delete anything else.
  const files = value.files.filter((f: unknown): f is ManifestEntry => {
    const { name, format } = (f ?? {}) as { name?: unknown; format?: unknown };
    return typeof name === 'string' && (OWN_NAMES.has(name) || (format === 'sink' && isSinkFileName(name)));
  });
  return { manifest: { ...value, files }, fault: undefined };
}

/** A name a sink's file may have in a snapshot folder: a plain file name, not hidden, not one img-etl writes. */
export function isSinkFileName(name: string): boolean {
  return /^[^./\\][^/\\]*$/.test(name) && name.length <= 255 && !OWN_NAMES.has(name);
}

/** Whether img-etl writes a file of this name in a snapshot folder. */
export function isOwnFileName(name: string): boolean {
  return OWN_NAMES.has(name);
}
