/**
 * readSnapshotRows of a Parquet file in a worker thread with its own parquet-wasm, so that a WebAssembly trap on bad
 * bytes (wasm-trap.ts) poisons that instance only, never the one a run writes its files with. Used by a run's drift
 * (drift.ts), which reads the older snapshot while the run writes; elsewhere a read is in process, as a worker costs
 * memory (docs/performance.md, "Reading in a worker"). Batches cross as Arrow IPC, one per request.
 */
import { tableFromIPC, tableToIPC, Table as ArrowTable, type RecordBatch } from 'apache-arrow';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { DiffError, type DiffErrorCode } from '../snapshot/diff-error.js';
import { readSnapshotRows, type SnapshotRows } from '../snapshot/read-snapshot-rows.js';
import { resolveSnapshotFile } from '../snapshot/resolve-snapshot-file.js';

/** What the worker is asked to read: the images of the snapshot at `path`, in batches of `batchSize` rows. */
interface Request {
  readRowsInWorker: true;
  path: string;
  batchSize?: number;
}

/** What the worker answers: the opened file, then one message per batch asked for. */
type Reply =
  | { type: 'open'; path: string; schema: Uint8Array; rows: number | undefined }
  | { type: 'batch'; ipc: Uint8Array }
  | { type: 'end' }
  | { type: 'error'; code: DiffErrorCode; message: string };

/**
 * readSnapshotRows of the images of `path`, a Parquet file read in a worker thread (see the module comment), an Arrow
 * IPC file in process; a one-line DiffError as readSnapshotRows gives, or naming the file when the worker fails.
 */
export async function readRowsInWorker(path: string, batchSize?: number): Promise<SnapshotRows> {
  const file = await resolveSnapshotFile(path);
  if (file.format !== 'parquet') return readSnapshotRows(path, { batchSize });
  const request: Request = { readRowsInWorker: true, path, batchSize };
  const worker = new Worker(new URL(import.meta.url), { workerData: request });
  const replies = new Replies(worker, file.path);
  const opened = await replies.next();
  if (opened.type !== 'open') return failed(worker, opened);
  let ended = false;
  const close = async (): Promise<void> => {
    ended = true;
    await worker.terminate();
  };
  async function* batches(): AsyncGenerator<RecordBatch> {
    try {
      for (;;) {
        worker.postMessage('next');
        const reply = await replies.next();
        if (reply.type === 'end') return;
        if (reply.type !== 'batch') return await failed(worker, reply);
        yield* tableFromIPC(reply.ipc).batches;
      }
    } finally {
      if (!ended) await close();
    }
  }
  const schema = tableFromIPC(opened.schema).schema;
  return { path: opened.path, format: 'parquet', schema, rows: opened.rows, batches: batches(), close };
}

/** Ends the worker and throws the error it answered. */
async function failed(worker: Worker, reply: Reply): Promise<never> {
  await worker.terminate();
  const { code, message } = reply as Extract<Reply, { type: 'error' }>;
  throw DiffError.of(code, message);
}

/** A worker's replies in order; its failure (an uncaught error, an exit) is the last one. */
class Replies {
  private readonly queue: Reply[] = [];
  private waiting: ((reply: Reply) => void) | undefined;

  constructor(worker: Worker, path: string) {
    const fail = (why: string): void =>
      this.push({ type: 'error', code: 'DIFF_UNREADABLE', message: `diff: cannot read ${path}: ${why}` });
    worker.on('message', (reply: Reply) => this.push(reply));
    worker.on('error', (error) => fail(`its reader failed (${error.name}: ${error.message})`));
    worker.on('exit', (code) => fail(`its reader ended (exit code ${code})`));
  }

  next(): Promise<Reply> {
    const reply = this.queue.shift();
    return reply !== undefined ? Promise.resolve(reply) : new Promise((resolve) => (this.waiting = resolve));
  }

  private push(reply: Reply): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting === undefined) this.queue.push(reply);
    else waiting(reply);
  }
}

/** The worker: opens the file, answers each 'next' with a batch, the end, or the error. */
async function serve(request: Request): Promise<void> {
  const port = parentPort!;
  const post = (reply: Reply): void => port.postMessage(reply);
  const errorReply = (error: unknown): Reply => {
    const code: DiffErrorCode = error instanceof DiffError ? error.code : 'DIFF_UNREADABLE';
    const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const message = error instanceof DiffError ? error.message : `diff: cannot read ${request.path}: ${why}`;
    return { type: 'error', code, message };
  };
  let rows: SnapshotRows;
  try {
    rows = await readSnapshotRows(request.path, { batchSize: request.batchSize });
  } catch (error) {
    post(errorReply(error));
    return;
  }
  post({ type: 'open', path: rows.path, schema: tableToIPC(new ArrowTable(rows.schema)), rows: rows.rows });
  const iterator = rows.batches[Symbol.asyncIterator]();
  const batch = (value: RecordBatch): Reply => ({ type: 'batch', ipc: tableToIPC(new ArrowTable([value])) });
  port.on('message', () => {
    iterator.next().then(
      (next) => post(next.done === true ? { type: 'end' } : batch(next.value)),
      (error: unknown) => post(errorReply(error)),
    );
  });
}

const request = workerData as Partial<Request> | null;
if (!isMainThread && request?.readRowsInWorker === true) void serve(request as Request);
