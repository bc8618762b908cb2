/**
 * The peer a savvy user writes instead of img-etl: read the list as the floor does (fetch-all-pages.ts),
 * write every record as a line of NDJSON, and let DuckDB turn the NDJSON into the file with
 * `COPY … (FORMAT parquet, COMPRESSION zstd)` or `COPY … (FORMAT csv, HEADER true)` (the CSV peer: a header line, as
 * img-etl writes one), DuckDB's settings otherwise left as they are.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import { type FetchedList, fetchAllPages } from './fetch-all-pages.js';
import { sqlString } from './sql-string.js';

/** The formats the peer writes. */
export const PEER_FORMATS = ['parquet', 'csv'] as const;
export type PeerFormat = (typeof PEER_FORMATS)[number];

/** What the peer is asked to do. */
export interface PeerJobOptions {
  /** The service, e.g. `http://127.0.0.1:40123`. */
  baseUrl: string;
  /** Pages in flight at once. */
  concurrency: number;
  /** Records asked for per page. */
  pageSize: number;
  /** An existing folder: `images.ndjson` is written there (and removed), then `images.{format}`. */
  out: string;
  format: PeerFormat;
}

/** What the peer read and the file it wrote. */
export interface PeerJobResult extends FetchedList {
  file: string;
}

const COPY_OPTIONS: Record<PeerFormat, string> = {
  parquet: 'FORMAT parquet, COMPRESSION zstd',
  csv: 'FORMAT csv, HEADER true',
};

/** Runs the whole job: every page to NDJSON, then DuckDB's COPY to `images.{format}`. */
export async function runDuckDBPeer(options: PeerJobOptions): Promise<PeerJobResult> {
  const ndjson = join(options.out, 'images.ndjson');
  const file = join(options.out, `images.${options.format}`);
  const stream = createWriteStream(ndjson);
  let read: FetchedList;
  try {
    read = await fetchAllPages({ ...options, userAgent: 'img-etl-duckdb-peer' }, async (page) => {
      if (page.results.length === 0) return;
      const lines = `${page.results.map((record) => JSON.stringify(record)).join('\n')}\n`;
      if (!stream.write(lines)) await once(stream, 'drain');
    });
  } finally {
    stream.end();
    await finished(stream);
  }
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const query = `SELECT * FROM read_ndjson(${sqlString(ndjson)})`;
    const copy = `COPY (${query}) TO ${sqlString(file)} (${COPY_OPTIONS[options.format]})`;
    await connection.run(copy);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  await rm(ndjson);
  return { ...read, file };
}
