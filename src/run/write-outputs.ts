import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { closeSource } from '../load/close-source.js';
import { LoadError } from '../text/load-error.js';
import type { SinkResult } from '../load/sink-result.js';
import { tee } from '../load/tee.js';
import { toCsv, type CsvEngine } from '../load/to-csv.js';
import type { ParquetEngine } from '../load/to-parquet.js';
import { toRejects } from '../load/to-rejects.js';
import { IMAGES } from '../schema/columns.js';
import type { RecordBatch } from 'apache-arrow';
import type { RowBatch } from '../schema/row.js';
import type { Table } from '../schema/table.js';
import type { Format } from './formats.js';

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
  /** One more consumer of the Arrow record batches built for Parquet and Arrow (the report's drift); default none. */
  arrowTap?: (batches: AsyncIterable<RecordBatch>) => Promise<unknown>;
}

/**
 * Feeds one stream of row batches to every sink at once (Arrow batches built once for Parquet and Arrow); resolves to
 * the files written.
 */
export async function writeOutputs(rows: AsyncIterable<RowBatch>, options: WriteOutputsOptions): Promise<SinkResult[]> {
  const { outDir, metadata } = options;
  const table = options.table ?? IMAGES;
  const { files } = table;
  const columnar = options.formats.filter((f) => f !== 'csv');
  const consumers: ((source: AsyncIterable<RowBatch>) => Promise<SinkResult | SinkResult[]>)[] = [
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
  if (columnar.length > 0) {
    consumers.push(async (source) => {
      // The Arrow stack (apache-arrow, and parquet-wasm in to-parquet.ts) loads while the first pages are fetched, and
      // only for these formats.
      const [{ toArrowBatches }, { toParquet }, { toArrow }] = await Promise.all([
        import('../load/arrow-batches.js'),
        import('../load/to-parquet.js'),
        import('../load/to-arrow.js'),
      ]).catch(async (error: unknown) => {
        await closeSource(source);
        throw error;
      });
      const tap = options.arrowTap;
      const streams = tee(toArrowBatches(source, table), columnar.length + (tap === undefined ? 0 : 1));
      try {
        const written = columnar.map((format, i) => {
          const path = join(outDir, files[format]);
          return format === 'parquet'
            ? toParquet(streams[i]!, { path, engine: options.parquetEngine, metadata, table })
            : toArrow(streams[i]!, { path, metadata, table });
        });
        const tapped = tap === undefined ? [] : [tap(arrowOf(streams[columnar.length]!)).then((): SinkResult[] => [])];
        return (await settleAll<SinkResult | SinkResult[]>([...written, ...tapped])).flat();
      } finally {
        // A sink that failed before reading closes a generator that never started, which cannot pass that on: release
        // this branch here, or the other sinks would wait for it forever.
        await closeSource(source);
      }
    });
  }
  const streams = tee(rows, consumers.length);
  return (await settleAll(consumers.map((consume, i) => consume(streams[i]!)))).flat();
}

async function* arrowOf(batches: AsyncIterable<{ arrow: RecordBatch }>): AsyncIterable<RecordBatch> {
  for await (const batch of batches) yield batch.arrow;
}

/** Waits for every sink; if any failed, throws the root failure rather than a sibling's "consumer stopped". */
async function settleAll<T>(promises: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  if (failures.length > 0) {
    throw failures.find((e) => !(e instanceof LoadError && e.code === 'LOAD_TEE_CONSUMER_STOPPED')) ?? failures[0];
  }
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}
