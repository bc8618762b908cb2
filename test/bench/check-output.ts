/** The checks of a measured run's output: a fast wrong run is a failure, not a result. */
import { access, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FORMATS } from './bench-runs.js';
import { countRowsAndIds } from './duckdb-count.js';
import type { PeerFormat } from './duckdb-peer-job.js';

/** The file img-etl writes for each format. */
export const IMG_ETL_FILES: Record<(typeof FORMATS)[number], string> = {
  parquet: 'images.parquet',
  arrow: 'images.arrow',
  csv: 'images.csv',
};

/** Parses one JSON document; when it is not one, says so in `problems` and returns undefined. */
export function parseJson(text: string, problems: string[]): unknown {
  try {
    return JSON.parse(text);
  } catch {
    problems.push(`stdout is not one JSON document: ${JSON.stringify(text.slice(0, 200))}`);
    return undefined;
  }
}

interface SummaryJson {
  complete?: boolean;
  records?: { written?: number; missing?: number };
  files?: { name?: string; format?: string; rows?: number; bytes?: number }[];
  manifest?: string;
}

interface ManifestJson {
  complete?: boolean;
  records_written?: number;
  rejects?: number;
  files?: { name?: string; rows?: number; bytes?: number }[];
}

/** One img-etl run's output: the folder, the data file in it and the summary it printed. */
export interface ImgEtlOutput {
  /** Records the service lists. */
  count: number;
  format: (typeof FORMATS)[number];
  out: string;
  file: string;
  stdout: string;
}

/**
 * Checks an img-etl run: the summary and the manifest complete with every record written and no
 * rejects, the file there with the rows and size the manifest gives, no staging folder left. Adds what
 * is wrong to `problems` and returns the file's size.
 */
export async function checkImgEtlOutput(output: ImgEtlOutput, problems: string[]): Promise<number | undefined> {
  const { count, format, out, file, stdout } = output;
  const summary = parseJson(stdout, problems) as SummaryJson | undefined;
  if (summary === undefined) return undefined;
  if (summary.complete !== true) problems.push(`summary: complete is ${summary.complete}`);
  const written = summary.records?.written;
  if (written !== count) problems.push(`summary: ${written} records written, the service lists ${count}`);
  const text = await readFile(join(out, 'manifest.json'), 'utf8').catch(() => undefined);
  const manifest = (text === undefined ? undefined : parseJson(text, problems)) as ManifestJson | undefined;
  if (manifest === undefined) {
    problems.push('no readable manifest.json');
    return undefined;
  }
  if (manifest.complete !== true) problems.push(`manifest: complete is ${manifest.complete}`);
  if (manifest.records_written !== count) {
    problems.push(`manifest: records_written is ${manifest.records_written}, expected ${count}`);
  }
  if (manifest.rejects !== 0) problems.push(`manifest: ${manifest.rejects} rejects`);
  const entry = manifest.files?.find((f) => f.name === IMG_ETL_FILES[format]);
  const bytes = await stat(file).then(
    (s) => s.size,
    () => undefined,
  );
  if (bytes === undefined) problems.push(`no ${file}`);
  else if (entry === undefined) problems.push(`manifest: no entry for ${format}`);
  else {
    if (entry.rows !== count) problems.push(`manifest: ${entry.rows} rows in ${entry.name}, expected ${count}`);
    if (entry.bytes !== bytes) problems.push(`manifest: ${entry.name} is ${entry.bytes} bytes, the file ${bytes}`);
  }
  const staging = await access(join(out, '.img-etl-staging')).then(
    () => true,
    () => false,
  );
  if (staging) problems.push('the staging folder was left behind');
  return bytes;
}

/** Checks the DuckDB peer's file: there, and DuckDB reads back `count` rows, `count` distinct ids. Returns its size. */
export async function checkPeerOutput(
  count: number,
  format: PeerFormat,
  file: string,
  problems: string[],
): Promise<number | undefined> {
  const bytes = await stat(file).then(
    (s) => s.size,
    () => undefined,
  );
  if (bytes === undefined) problems.push(`no ${file}`);
  else {
    const { rows, ids } = await countRowsAndIds(file, format);
    if (rows !== count || ids !== count) {
      problems.push(`${file}: ${rows} rows, ${ids} distinct ids, the service lists ${count}`);
    }
  }
  return bytes;
}
