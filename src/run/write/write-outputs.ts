/** The write: one stream of row batches fed to every file's writer and to every tap at once. */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { closeSource } from '../../load/close-source.js';
import { settleAll } from '../../text/settle-all.js';
import { LoadError } from '../../text/load-error.js';
import type { SinkResult } from '../../load/sink-result.js';
import { tee } from '../../load/tee.js';
import { toCsv, type CsvEngine } from '../../load/csv/to-csv.js';
import type { ParquetEngine } from '../../load/parquet/to-parquet.js';
import { toRejects } from '../../load/to-rejects.js';
import { untilAborted } from '../until-aborted.js';
import { IMAGES } from '../../schema/columns.js';
import type { RecordBatch } from 'apache-arrow';
import type { RowBatch } from '../../schema/row.js';
import type { Table } from '../../schema/table.js';
import type { Format } from '../../snapshot/formats.js';

/** Which files to write, and how. */
export interface WriteOutputsOptions {
  /** Output folder. */
  outDir: string;
  /** Data formats; rejects.ndjson is written whenever there are rejects. */
  formats: readonly Format[];
  /** Parquet writer; default `wasm`. */
  parquetEngine?: ParquetEngine;
  /** CSV writer; default `builtin`. */
  csvEngine?: CsvEngine;
  /** CSV formula neutralisation; default true. */
  neutraliseFormulas?: boolean;
  /** Key-value metadata for Parquet and Arrow. */
  metadata: Record<string, string>;
  /** The table the rows are of, which names the files; default the images. */
  table?: Table;
  /** More consumers of the row batches beside the writers, each reading its stream to the end (taps); default none. */
  rowTaps?: readonly StreamTap<RowBatch>[];
  /**
   * More consumers of the Arrow record batches built for Parquet and Arrow (built for them alone when neither is
   * written), each reading its stream to the end; default none.
   */
  arrowTaps?: readonly StreamTap<RecordBatch>[];
  /** Stops the write between two batches once aborted, failing it with the signal's reason; default none. */
  signal?: AbortSignal;
}

/** A consumer of a table's batches beside the writers (see tee.ts: it reads every batch, or the writers stop). */
export type StreamTap<T> = (batches: AsyncIterable<T>) => Promise<void>;

type Consumer = (source: AsyncIterable<RowBatch>) => Promise<SinkResult | SinkResult[]>;

/**
 * Feeds one stream of row batches to every sink and tap at once (Arrow batches built once for Parquet, Arrow and the
 * Arrow taps); resolves to the files written.
 */
export async function writeOutputs(rows: AsyncIterable<RowBatch>, options: WriteOutputsOptions): Promise<SinkResult[]> {
  const { outDir } = options;
  const table = options.table ?? IMAGES;
  const { files } = table;
  const consumers: Consumer[] = [
    async (source) => {
      const rejects = await toRejects(source, { path: join(outDir, files.rejects) });
      // No stale file from an earlier run.
      if (rejects.file === null) await rm(join(outDir, files.rejects), { force: true });
      return rejects.file === null ? [] : [rejects.file];
    },
  ];
  if (options.formats.includes('csv')) {
    consumers.push((source) =>
      toCsv(source, {
        path: join(outDir, files.csv),
        engine: options.csvEngine,
        neutraliseFormulas: options.neutraliseFormulas ?? true,
        table,
      }),
    );
  }
  if (options.formats.some((f) => f !== 'csv') || (options.arrowTaps ?? []).length > 0)
    consumers.push((source) => writeColumnar(source, options, table));
  for (const tap of options.rowTaps ?? []) consumers.push(async (source) => tap(source).then((): SinkResult[] => []));
  const streams = tee(untilAborted(rows, options.signal), consumers.length);
  return (
    await settleAll(
      consumers.map((consume, i) => consume(streams[i]!)),
      isRootFailure,
    )
  ).flat();
}

/** Builds the Arrow record batches once and feeds them to the Parquet and Arrow writers and the Arrow taps. */
async function writeColumnar(source: AsyncIterable<RowBatch>, options: WriteOutputsOptions, table: Table) {
  const { outDir, metadata } = options;
  const columnar = options.formats.filter((f) => f !== 'csv');
  const taps = options.arrowTaps ?? [];
  // The Arrow stack (apache-arrow, and parquet-wasm in to-parquet.ts) loads while the first pages are fetched, and
  // only for these formats.
  const [{ toArrowBatches }, { toParquet }, { toArrow }] = await Promise.all([
    import('../../load/arrow/arrow-batches.js'),
    import('../../load/parquet/to-parquet.js'),
    import('../../load/arrow/to-arrow.js'),
  ]).catch(async (error: unknown) => {
    await closeSource(source);
    throw error;
  });
  const streams = tee(toArrowBatches(source, table), columnar.length + taps.length);
  try {
    const written = columnar.map((format, i) => {
      const path = join(outDir, table.files[format]);
      return format === 'parquet'
        ? toParquet(streams[i]!, { path, engine: options.parquetEngine, metadata, table })
        : toArrow(streams[i]!, { path, metadata, table });
    });
    const tapped = taps.map((tap, i) => tap(arrowOf(streams[columnar.length + i]!)).then((): SinkResult[] => []));
    return (await settleAll<SinkResult | SinkResult[]>([...written, ...tapped], isRootFailure)).flat();
  } finally {
    // A sink that failed before reading closes a generator that never started, which cannot pass that on: release
    // this branch here, or the other sinks would wait for it forever.
    await closeSource(source);
  }
}

async function* arrowOf(batches: AsyncIterable<{ arrow: RecordBatch }>): AsyncIterable<RecordBatch> {
  for await (const batch of batches) yield batch.arrow;
}

/** A sink's own failure, not a sibling's "consumer stopped" that echoes it. */
function isRootFailure(error: unknown): boolean {
  return !(error instanceof LoadError && error.code === 'LOAD_TEE_CONSUMER_STOPPED');
}
