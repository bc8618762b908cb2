/**
 * The sha256 that names a pipeline file in a run's identity, of the file and of the local modules it imports: a rule in
 * a helper module changes the pipeline, and a run must not resume or build on rows the old rule computed.
 */
import { createHash } from 'node:crypto';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isFile } from '../load/file-system/path-kind.js';
import { readRegularFile } from '../load/file-system/read-regular-file.js';

/**
 * The specifiers a module's text imports (static, re-exported, dynamic with a literal, required). Read by pattern, not
 * parsed: a specifier in a comment or a string only adds a file to the digest; a computed one is not seen.
 */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(["'])([^"'\n]+)\1/g;

/** The built library's folder (dist/, two levels above this file or its chunk): img-etl's modules, not the user's. */
const LIBRARY_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The sha256 of `file` when it imports no local module (its bytes alone); else of the file and each local module it
 * imports, followed through theirs: a relative or file path, not a package, not img-etl's own built library.
 */
export async function pipelineFileDigest(file: string): Promise<string> {
  const modules = await localModules(file);
  if (modules.length === 1) return sha256(modules[0]!.bytes);
  const parts = modules.map((m) => [relative(dirname(file), m.path), sha256(m.bytes)]);
  return sha256(Buffer.from(JSON.stringify(parts)));
}

/**
 * `file` and the local modules it imports, each once, in the order they are first imported; a RegularFileError for one
 * that is not a regular file of at most 64 MiB (a link is followed).
 */
export async function localModules(file: string) {
  const seen = new Set<string>([file]);
  const modules: { path: string; bytes: Buffer }[] = [];
  const queue = [file];
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    const bytes = await readRegularFile(path, { maxBytes: 64 << 20, followLink: true });
    modules.push({ path, bytes });
    for (const imported of await importedFiles(path, bytes.toString('utf8'))) {
      if (seen.has(imported)) continue;
      seen.add(imported);
      queue.push(imported);
    }
  }
  return modules;
}

/** The existing local files the module at `path` imports, in the order its text names them. */
async function importedFiles(path: string, text: string): Promise<string[]> {
  const files: string[] = [];
  for (const [, , specifier] of text.matchAll(SPECIFIER)) {
    const file = localFile(path, specifier!);
    if (file !== undefined && (await isFile(file))) files.push(file);
  }
  return files;
}

/** The file a specifier names, if it is local: relative, absolute or a file URL, outside node_modules and dist/. */
function localFile(importer: string, specifier: string): string | undefined {
  if (!/^(\.{1,2}\/|\/|file:)/.test(specifier)) return undefined; // a package, node:, data:, a subpath import
  let file: string;
  try {
    file = fileURLToPath(new URL(specifier, pathToFileURL(importer)));
  } catch {
    return undefined;
  }
  const inLibrary = !relative(LIBRARY_DIR, file).startsWith('..');
  return inLibrary || file.split(sep).includes('node_modules') ? undefined : file;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
