/** A user's own sink on a run: a function that consumes the images' row batches beside img-etl's writers. */
import { rm } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { closeSource } from '../load/close-source.js';
import { checkFileDigest } from '../load/file-system/file-digest.js';
import type { SinkResult } from '../load/sink-result.js';
import { rowsOnly, type RowBatch } from '../schema/row.js';
import { FILE_NAMES } from '../snapshot/formats.js';
import { isOwnFileName, isSinkFileName, readManifest } from '../snapshot/read-manifest.js';
import { LoadError } from '../text/load-error.js';
import type { RunTap, RunTapContext } from './run-tap.js';

/**
 * A tap that gives the run's row batches (id order, de-duplicated, after the pipeline's stages; `run.table` says their
 * columns) to `write`, e.g. `rowSink((rows, run) => toCsv(rows, { path: join(run.pending, 'tmaps.csv'), table:
 * run.table }))`. It reads the batches to the end: a sink that resolves before fails the run (LOAD_SINK_STOPPED). A
 * file it writes into `run.pending` and resolves to (a SinkResult, as toCsv, toParquet and toArrow give, or an array
 * of them) is published with the run's files, atomically, and listed in the manifest (format `sink`); one it writes
 * elsewhere is its own, but one in the output folder outside `run.pending` is refused and removed (removeRefused). A
 * failure of `write` fails the run in one line naming the sink (LOAD_SINK_FAILED), and nothing of it is published.
 */
export function rowSink(write: (rows: AsyncIterable<RowBatch>, run: RunTapContext) => Promise<unknown>): RunTap {
  return {
    open: (run) => {
      let published: SinkResult[] = [];
      return Promise.resolve({
        rows: async (batches) => {
          const reading = readingToEnd(rowsOnly(batches));
          try {
            const resolved = await write(reading.rows, run).catch((error: unknown) => {
              throw reading.passing.has(error as object) ? error : sinkFailed(write, error);
            });
            await reading.check();
            published = await sinkFiles(resolved, run);
          } finally {
            // a sink that failed before reading to the end would hold the writers at its batch (tee.ts)
            await closeSource(batches);
          }
        },
        afterImages: () => Promise.resolve(published),
      });
    },
  };
}

/**
 * The batches a sink reads, and a check once it resolved that it read them to their end. The writers take each batch
 * only as every consumer does (tee.ts): a sink that resolved with batches unread would hold them forever, and one
 * that stopped part-way would fail them with a tee's message that names no sink.
 */
function readingToEnd(batches: AsyncIterable<RowBatch>) {
  let read = 0;
  let ended = false;
  const passing = new WeakSet<object>(); // the run's errors, which reach the sink through its rows: not the sink's
  const rows = (async function* () {
    try {
      for await (const batch of batches) {
        read++;
        yield batch;
      }
    } catch (error) {
      if (typeof error === 'object' && error !== null) passing.add(error);
      throw error;
    }
    ended = true;
  })();
  const check = async () => {
    const taken = read; // by the sink, not the look past them below
    if (!ended) await rows.next(); // at the end already (no batch, or every batch read), it ends here
    if (ended) return;
    throw LoadError.of(
      'LOAD_SINK_STOPPED',
      `load: a sink (rowSink) resolved before reading the run's rows to the end (it read ${taken} ` +
        `batch${taken === 1 ? '' : 'es'}): a sink reads every batch, or the run cannot write its files`,
    );
  };
  return { rows, check, passing };
}

/** The error of a sink's `write` that failed: one line naming the sink (its function's name, when it has one). */
function sinkFailed(write: { name: string }, error: unknown): LoadError {
  const reason = error instanceof Error ? error.message || error.name : String(error);
  const which = write.name === '' ? 'rowSink' : `rowSink ${write.name}`;
  return LoadError.of('LOAD_SINK_FAILED', `load: a sink (${which}) failed: ${reason}`, error);
}

/** The files a sink resolved to that the run publishes (those in `run.pending`); a LoadError for a misplaced one. */
async function sinkFiles(resolved: unknown, run: RunTapContext): Promise<SinkResult[]> {
  const results = (Array.isArray(resolved) ? resolved : [resolved]).filter(isSinkResult);
  const once = [...new Map(results.map((result) => [resolve(result.path), result])).values()]; // one file, once
  const published: SinkResult[] = [];
  for (const result of once) if (await publishable(result, run)) published.push({ ...result, format: 'sink' });
  return published;
}

function isSinkResult(value: unknown): value is SinkResult {
  const r = value as Partial<SinkResult> | null;
  return typeof r?.path === 'string' && typeof r.sha256 === 'string' && typeof r.bytes === 'number';
}

/**
 * Whether the run publishes the sink's file `result` (in `run.pending`); throws where it cannot be published, having
 * removed it from the output folder when it was the sink's to remove (removeRefused).
 */
async function publishable(result: SinkResult, run: RunTapContext): Promise<boolean> {
  const file = resolve(result.path);
  const pending = resolve(run.pending);
  const refuse = (why: string) => {
    throw LoadError.of('LOAD_INVALID_OPTION', `load: a sink ${why}`);
  };
  if (dirname(file) === pending) {
    const name = basename(file);
    if (isOwnFileName(name)) refuse(`cannot publish ${name}: img-etl writes a file of that name (choose another)`);
    if (!isSinkFileName(name)) refuse(`cannot publish ${name}: not a plain file name, or a hidden one`);
    return true;
  }
  if (inside(file, pending)) refuse(`wrote ${file} in a folder inside run.pending: only its own files are published`);
  if (inside(file, resolve(run.baseDir))) {
    // the data folder is the output folder or inside it
    const removed = await removeRefused(file, result);
    refuse(
      `wrote ${file}, in the output folder but not in run.pending (${pending}): write it there to publish it ` +
        `with the run${removed ? '; it was removed' : ''}`,
    );
  }
  return false; // the user's own file, elsewhere
}

/**
 * Removes a sink's file refused in the output folder, so that the failed run leaves no file among an earlier run's
 * (the promise of publish-folder.ts): only while it holds the bytes the sink resolved to (else it is not the file the
 * sink wrote) and under a name neither img-etl nor the manifest beside it gives (an earlier run's file stays).
 * Resolves to whether it went.
 */
async function removeRefused(path: string, result: SinkResult): Promise<boolean> {
  const name = basename(path);
  const manifest = await readManifest(join(dirname(path), FILE_NAMES.manifest));
  if (isOwnFileName(name) || manifest?.files.some((file) => file.name === name) === true) return false;
  if ((await checkFileDigest(path, result).catch(() => undefined))?.holds !== true) return false;
  return rm(path).then(
    () => true,
    () => false,
  );
}

function inside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
