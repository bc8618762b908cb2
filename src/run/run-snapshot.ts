import { mkdir, rm } from 'node:fs/promises';
import { join, basename } from 'node:path';
import { paginate, newExtractStats, type PaginateOptions } from '../extract/paginate.js';
import { listUrlOf } from '../extract/page-url.js';
import { toArrowBatches } from '../load/arrow-batches.js';
import { toArrow } from '../load/to-arrow.js';
import { toCsv } from '../load/to-csv.js';
import { toParquet, type ParquetEngine } from '../load/to-parquet.js';
import { toRejects } from '../load/to-rejects.js';
import { LoadError } from '../load/load-error.js';
import { tee } from '../load/tee.js';
import { writeJsonAtomic } from '../load/write-json-atomic.js';
import type { SinkResult } from '../load/sink-result.js';
import { SCHEMA_VERSION } from '../schema/columns.js';
import type { Row, RowBatch } from '../schema/row.js';
import { dedupe } from '../transform/dedupe.js';
import { emptyNormalisationCounts, normalise } from '../transform/normalise.js';
import { validate } from '../transform/validate.js';
import { FILE_NAMES, type Format } from './formats.js';
import type { Manifest } from './manifest.js';
import { TOOL } from './tool.js';

/** A full snapshot run: where from, where to, which formats. */
export interface SnapshotOptions extends PaginateOptions {
  /** Output folder; default `output`. */
  outDir?: string;
  /** Formats to write; default `['parquet']`. */
  formats?: readonly Format[];
  /** Parquet writer; default `wasm` (see README). */
  parquetEngine?: ParquetEngine;
  /** Prefix CSV values that a spreadsheet would run as a formula with `'`; default true. */
  neutraliseFormulas?: boolean;
  /** Rows to keep for a preview of the output; default 0. */
  previewRows?: number;
}

/** What a run produced. */
export interface SnapshotResult {
  /** The manifest, as written to `manifest.json`. */
  manifest: Manifest;
  /** Path of the manifest. */
  manifestPath: string;
  /** The first rows written, up to `previewRows`. */
  preview: Row[];
}

/** Extracts every page, validates, normalises and deduplicates the records, and writes each format plus the manifest, each file atomically. */
export async function runSnapshot(options: SnapshotOptions = {}): Promise<SnapshotResult> {
  const startedAt = new Date();
  const outDir = options.outDir ?? 'output';
  const formats: Format[] = [...new Set<Format>(options.formats ?? ['parquet'])];
  await mkdir(outDir, { recursive: true });
  const sourceUrl = listUrlOf(options.baseUrl ?? 'https://neurovault.org').href;
  const extractStats = newExtractStats();
  const normalisation = emptyNormalisationCounts();
  const dedupeCounts = { duplicatesDropped: 0 };
  const preview: Row[] = [];
  const previewRows = options.previewRows ?? 0;

  const rows = counting(dedupe(normalise(validate(paginate(options, extractStats)), normalisation), dedupeCounts), preview, previewRows);
  const metadata = { 'img-etl.source_url': sourceUrl, 'img-etl.snapshot_time': startedAt.toISOString(), 'img-etl.schema_version': SCHEMA_VERSION };
  const columnar = formats.filter((f) => f !== 'csv');
  const consumers: ((source: AsyncIterable<RowBatch>) => Promise<SinkResult | SinkResult[]>)[] = [
    async (source) => {
      const rejects = await toRejects(source, { path: join(outDir, FILE_NAMES.rejects) });
      if (rejects.file === null) await rm(join(outDir, FILE_NAMES.rejects), { force: true }); // no stale file from an earlier run
      return rejects.file === null ? [] : [rejects.file];
    },
  ];
  if (formats.includes('csv')) {
    consumers.push((source) => toCsv(source, { path: join(outDir, FILE_NAMES.csv), neutraliseFormulas: options.neutraliseFormulas ?? true }));
  }
  if (columnar.length > 0) {
    consumers.push(async (source) => {
      const streams = tee(toArrowBatches(source), columnar.length);
      const written = columnar.map((format, i) => {
        const path = join(outDir, FILE_NAMES[format]);
        return format === 'parquet' ? toParquet(streams[i]!, { path, engine: options.parquetEngine, metadata }) : toArrow(streams[i]!, { path, metadata });
      });
      return Promise.all(written);
    });
  }
  const streams = tee(rows.stream, consumers.length);
  const files = (await settleAll(consumers.map((consume, i) => consume(streams[i]!)))).flat();

  const received = rows.written + rows.rejects;
  const manifest: Manifest = {
    tool: TOOL,
    schema_version: SCHEMA_VERSION,
    source_url: sourceUrl,
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    complete: received >= extractStats.countAtEnd,
    count_at_start: extractStats.countAtStart,
    count_at_end: extractStats.countAtEnd,
    expected: extractStats.countAtEnd,
    received,
    pages_fetched: extractStats.pagesFetched,
    page_size: extractStats.pageSize,
    retries: extractStats.retries,
    records_written: rows.written,
    duplicates_dropped: dedupeCounts.duplicatesDropped,
    rejects: rows.rejects,
    normalisation: {
      sentinel_to_null: normalisation.sentinelToNull,
      empty_to_null: normalisation.emptyToNull,
      records_with_extra: normalisation.recordsWithExtra,
    },
    files: files.map((f) => ({ name: basename(f.path), format: f.format as Manifest['files'][number]['format'], rows: f.rows, bytes: f.bytes, sha256: f.sha256 })),
  };
  const manifestPath = join(outDir, FILE_NAMES.manifest);
  await writeJsonAtomic(manifestPath, manifest);
  return { manifest, manifestPath, preview };
}

function counting(source: AsyncIterable<RowBatch>, preview: Row[], previewRows: number) {
  const counter = { written: 0, rejects: 0, stream: undefined as unknown as AsyncIterable<RowBatch> };
  counter.stream = (async function* () {
    for await (const batch of source) {
      counter.written += batch.rows.length;
      counter.rejects += batch.rejects.length;
      for (const row of batch.rows) if (preview.length < previewRows) preview.push(row);
      yield batch;
    }
  })();
  return counter;
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
