/** Finds and imports a pipeline, by name from pipelines/ or from a file, with the digest that names its version. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Pipeline } from '../run/pipeline.js';
import { pipelineRunOptions } from '../run/pipeline-run-options.js';
import { formatsFault } from '../snapshot/formats.js';
import { TOOL_NAME, VERSION } from '../snapshot/tool.js';
import { RegularFileError } from '../load/file-system/read-regular-file.js';
import { localModules, pipelineFileDigest } from './pipeline-file-digest.js';
import { UsageError } from './usage-error.js';
import { messageOf } from '../text/message-of.js';

/** The compiled pipelines/ folder (dist/pipelines), found from this file in dist/src/cli. */
function pipelinesDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'pipelines');
}

/** Names of the pipelines in pipelines/, sorted. */
export async function pipelineNames(): Promise<string[]> {
  const names = await readdir(pipelinesDir()).catch(() => []);
  return names
    .filter((n) => n.endsWith('.js'))
    .map((n) => n.slice(0, -3))
    .sort();
}

/**
 * Loads a pipeline by name (from pipelines/) or by path to a .js/.mjs file exporting one as default, with what it gives
 * the runner (its identity names the sha256 of the file and the local modules it imports: pipeline-file-digest.ts); a
 * one-line usage error otherwise.
 */
export async function loadPipeline(nameOrPath: string) {
  const isPath = /[/\\]/.test(nameOrPath) || /\.m?js$/.test(nameOrPath);
  const file = isPath ? resolve(nameOrPath) : join(pipelinesDir(), `${nameOrPath}.js`);
  if (!isPath && !/^[a-z0-9][a-z0-9-]*$/.test(nameOrPath))
    throw new UsageError(`run: ${JSON.stringify(nameOrPath)} is not a pipeline name`);
  if (!existsSync(file)) {
    const known = await pipelineNames();
    throw new UsageError(
      isPath
        ? `run: no pipeline file ${file}`
        : `run: no pipeline named ${JSON.stringify(nameOrPath)}; known: ${known.join(', ')}`,
    );
  }
  const sha256 = await pipelineFileDigest(file).catch((err: unknown) => {
    throw err instanceof RegularFileError ? new UsageError(`run: ${err.message}`) : err;
  });
  const pipeline = (await importPipelineFile(file, sha256, nameOrPath)).default;
  if (pipeline === undefined || typeof pipeline.name !== 'string' || typeof pipeline.description !== 'string') {
    throw new UsageError(`run: ${file} does not export a pipeline as default (use definePipeline from img-etl)`);
  }
  const fault = pipeline.formats === undefined ? undefined : formatsFault(pipeline.formats);
  if (fault !== undefined) throw new UsageError(`run: ${file}: ${fault}`);
  try {
    return { pipeline: pipeline as Pipeline, options: pipelineRunOptions(pipeline as Pipeline, sha256) };
  } catch (error) {
    throw new UsageError(`run: ${file}: ${messageOf(error)}`);
  }
}

/**
 * The digest of each pipeline file as this process first imported it. node keeps a module it imported, by its URL: a
 * file changed since (a second run of the command line in one process, a library user's) is imported again under a
 * URL naming its digest, so that the run runs the file its identity names. (A local module it imports is node's to
 * keep: its change makes the file's digest new, not the module.)
 */
const imported = new Map<string, string>();

/**
 * Imports a pipeline file as it is now (its digest `sha256`); an error of its own fails in one line naming the file:
 * a syntax error as a usage error, with its line and column, a throw at its top level as the run's failure. A file
 * outside a project that installed img-etl cannot import it (node resolves `img-etl` from the file's folder, not from
 * the running program): that is a one-line usage error saying how to install it.
 */
async function importPipelineFile(
  file: string,
  sha256: string,
  given: string,
): Promise<{ default?: Partial<Pipeline> }> {
  const url = pathToFileURL(file);
  if (!imported.has(file)) imported.set(file, sha256);
  else if (imported.get(file) !== sha256) url.search = `sha256=${sha256}`;
  try {
    return (await import(url.href)) as { default?: Partial<Pipeline> };
  } catch (error) {
    if (error instanceof SyntaxError) throw new UsageError(`run: ${await syntaxError(file, error)}`);
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String(error).includes(`Cannot find package '${TOOL_NAME}'`))
      throw new Error(`run: ${file} failed as it was imported: ${importFailure(error)}`, { cause: error });
    throw new UsageError(
      `run: ${file} imports ${TOOL_NAME}, which is not installed in its project: install it there ` +
        `(npm i ${TOOL_NAME}, or npm i /path/to/${TOOL_NAME}-${VERSION}.tgz), then run npx ${TOOL_NAME} run ${given}`,
    );
  }
}

/**
 * Where a pipeline file, or a local module it imports, breaks the grammar: `path:line:column: SyntaxError: …`. node's
 * import() does not say where; `node --check` does, in the lines it prints (the file and line, the source line, a
 * caret under the column). A SyntaxError no module's check finds (an import naming an export the module lacks) is
 * told as the import's.
 */
async function syntaxError(file: string, error: SyntaxError): Promise<string> {
  for (const { path } of await localModules(file)) {
    const printed = await new Promise<string>((resolve) =>
      execFile(process.execPath, ['--check', path], (failed, _, stderr) => resolve(failed === null ? '' : stderr)),
    );
    const [at, , caret] = printed.split('\n');
    const message = /^SyntaxError: .*$/m.exec(printed)?.[0];
    if (at === undefined || !at.startsWith(`${path}:`) || message === undefined) continue;
    const column = caret?.indexOf('^') ?? -1;
    return `${at}${column >= 0 ? `:${column + 1}` : ''}: ${message}`;
  }
  return `${file} failed as it was imported: ${importFailure(error)}`;
}

/** Why importing a pipeline file failed: its error's message, after the name of its class when not a plain Error. */
function importFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const message = error.message || '(no message)';
  return error.name === 'Error' || error.name === '' ? message : `${error.name}: ${message}`;
}
