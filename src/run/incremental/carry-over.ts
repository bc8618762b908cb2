/**
 * The images an incremental run writes: the rows of the collections it carried over, read back from the snapshot it
 * builds on, and the rows it read (staged), merged in ascending id order into batches of a fixed size, then the rejects
 * of both in the order of their keys. The writers get the same batches a full run's would give them for the same
 * records, so the files are the same bytes. Each base row is checked against the base's images.index as it is read: its
 * id, and the hash of each row carried over.
 */
import type { Checkpoint } from '../../extract/staging/checkpoint.js';
import type { RecordIndex } from '../../extract/staging/record-index.js';
import { rejectUrl } from '../../extract/staging/replay-rejects.js';
import { compareRejectKeys } from '../../extract/staging/record-index.js';
import type { Reject, Row, RowBatch } from '../../schema/row.js';
import type { Table } from '../../schema/table.js';
import { readSnapshotRows } from '../../snapshot/read-snapshot-rows.js';
import { FILE_NAMES } from '../../snapshot/formats.js';
import { rowsFromBatch } from '../../snapshot/rows-from-batch.js';
import { BaseRowMismatch, type BaseSnapshot } from './base-snapshot.js';
import type { CarriedReject } from './carried-rejects.js';
import type { NormalisationByCollection } from '../write/normalisation-by-collection.js';
import { replayColumns } from '../write/replay-columns.js';
import { RowHasher } from '../index/row-hash.js';
import { SnapshotIndexReader } from '../index/snapshot-index-reader.js';

/** What the merge needs besides the staging. */
export interface CarryOver {
  /** The snapshot the run builds on. */
  base: BaseSnapshot;
  /** The collections whose rows are carried over. */
  carried: ReadonlySet<number>;
  /** The image list's URL (rejects name their own URL under it). */
  imagesUrl: string;
  /** Rows per batch; default 1,000, as a full run's. */
  batchSize?: number;
}

/**
 * The run's images in id order, the carried rows and the staged ones, then the rejects of both; adds to `counts` what
 * normalisation replaced in the staged rows, and the base's counts of the collections carried over.
 */
export async function* carryOver(
  index: RecordIndex,
  checkpoint: Checkpoint,
  table: Table,
  counts: NormalisationByCollection,
  over: CarryOver,
): AsyncIterable<RowBatch> {
  const batchSize = over.batchSize ?? 1_000;
  // A row read this run that the base held in a collection carried over would be counted twice; it cannot be in a
  // completed incremental run: the base's rows of that collection and the rows read would then hold more rows than the
  // image list counts, and collectIncremental makes a full pass when they disagree (collect-incremental.ts).
  for (const key of over.base.normalisation.keys())
    if (isCarried(over, key)) counts.add(key, over.base.normalisation.get(key)!);
  const stagedRejects: Reject[] = [];
  const staged = stagedRows(replayColumns(index, checkpoint, table, counts, { arrow: false }), stagedRejects);
  let rows: Row[] = [];
  let offset = 0;
  for await (const row of mergeById(staged, carriedRows(over, table))) {
    rows.push(row);
    if (rows.length === batchSize) {
      yield { source: { url: 'staging', offset }, rows, rejects: [] };
      offset += rows.length;
      rows = [];
    }
  }
  if (rows.length > 0) yield { source: { url: 'staging', offset }, rows, rejects: [] };
  const rejects = await allRejects(stagedRejects, over);
  for (let i = 0; i < rejects.length; i += batchSize)
    yield { source: { url: 'staging', offset: i }, rows: [], rejects: rejects.slice(i, i + batchSize) };
}

/** The staged rows one by one in id order; the staged rejects are gathered into `rejects`. */
async function* stagedRows(batches: AsyncIterable<RowBatch>, rejects: Reject[]): AsyncIterable<Row> {
  for await (const batch of batches) {
    rejects.push(...batch.rejects);
    yield* batch.rows;
  }
}

/** Whether a base row (or reject) of collection `cid` is carried over: its collection is (collectIncremental's). */
function isCarried(over: CarryOver, cid: unknown): boolean {
  return typeof cid === 'number' && over.carried.has(cid);
}

/**
 * The base's rows that are carried over, in its file's order (ascending id): from the images file its manifest lists
 * (which chooseBase counted), never another file beside it. Its manifest vouches for the file and for the index
 * alike; a file that is not the one its index was written with (swapped, its manifest edited to fit) differs from the
 * index in a row's id or hash: a BaseRowMismatch, and the run makes a full pass.
 */
async function* carriedRows(over: CarryOver, table: Table): AsyncIterable<Row> {
  const { imagesFile, dir } = over.base;
  const opened = await readSnapshotRows(imagesFile);
  const index = await SnapshotIndexReader.open(dir);
  const [hasher, hash] = [new RowHasher(table), new Uint32Array(2)];
  const mismatch = (where: string) =>
    new BaseRowMismatch(`${imagesFile} does not match its ${FILE_NAMES.index} ${where}`);
  let at = 0;
  try {
    if ('none' in index) throw new BaseRowMismatch(index.none);
    for await (const batch of opened.batches)
      for (const row of rowsFromBatch(batch, table)) {
        const carried = isCarried(over, row['collection_id']);
        if (carried) hasher.hash(row, hash, 0);
        // An index cut short or out of order is no match; a chunk holds many rows, so most rows need no wait.
        const listed = index.hasRow() || (await index.ready().catch(() => false));
        if (!listed || index.id() !== row['id'] || (carried && !index.hashIs(hash)))
          throw mismatch(`at row ${at + 1} (id ${String(row['id'])})`);
        index.next();
        at++;
        if (carried) yield row;
      }
    if (await index.ready().catch(() => true)) throw mismatch(`in length (it holds more than ${at} rows)`);
  } finally {
    await opened.close();
    if (!('none' in index)) await index.close();
  }
}

/** Two streams of rows in ascending id order as one; of a row in both, the first stream's (read this run). */
async function* mergeById(first: AsyncIterable<Row>, second: AsyncIterable<Row>): AsyncIterable<Row> {
  const [a, b] = [first[Symbol.asyncIterator](), second[Symbol.asyncIterator]()];
  let [x, y] = [await a.next(), await b.next()];
  try {
    while (!x.done || !y.done) {
      const order = x.done ? 1 : y.done ? -1 : (x.value['id'] as number) - (y.value['id'] as number);
      if (order <= 0) {
        yield x.value as Row;
        if (order === 0) y = await b.next();
        x = await a.next();
      } else {
        yield y.value as Row;
        y = await b.next();
      }
    }
  } finally {
    await a.return?.();
    await b.return?.();
  }
}

/** The staged rejects and the carried ones not read again, in the order of their keys, as a full run writes them. */
async function allRejects(staged: Reject[], over: CarryOver): Promise<Reject[]> {
  const { rejectKey } = await import('../../extract/staging/save-page.js');
  const keyed = staged.map((reject) => ({ key: rejectKey(reject.record), reject }));
  const stagedKeys = new Set(keyed.map((k) => k.key));
  const carried = over.base.rejects.filter((r) => isCarried(over, r.collection) && !stagedKeys.has(r.key));
  if (carried.length > 0) {
    const { imageIssues } = await import('../../schema/image-schema.js'); // zod, only when there are rejects
    for (const r of carried) keyed.push({ key: r.key, reject: carriedReject(r, over.imagesUrl, imageIssues) });
  }
  return keyed.sort((p, q) => compareRejectKeys(p.key, q.key)).map((k) => k.reject);
}

function carriedReject(
  r: CarriedReject,
  imagesUrl: string,
  issuesOf: (record: unknown) => Reject['issues'] | undefined,
): Reject {
  return { url: rejectUrl(imagesUrl, r.key), record: r.record, text: r.text, issues: issuesOf(r.record) ?? [] };
}
