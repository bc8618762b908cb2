/**
 * Sink: RFC 4180 CSV with a header row, by one of two engines that write the same bytes (csv-format.ts, img-etl's own,
 * and csv-stringify-format.ts). Records end with LF, identical on every platform; null is an empty field and an empty
 * string `""`, so that readers can tell them apart; timestamps are ISO 8601 UTC with microseconds, numbers in their
 * shortest round-trip form.
 */
import { IMAGES } from '../../schema/columns.js';
import { rowCount, type Row, type RowBatch } from '../../schema/row.js';
import type { Table } from '../../schema/table.js';
import type { AtomicFile } from '../file-system/atomic-file.js';
import { writeSinkFile } from '../write-sink-file.js';
import { formatCsvHeader, formatCsvRows } from './csv-format.js';
import { stagedCsvOf } from './csv-records.js';
import { encodeFailed } from '../../text/load-error.js';
import type { SinkResult } from '../sink-result.js';

import { engineOf, type CsvEngine } from '../engine-names.js';

export type { CsvEngine } from '../engine-names.js';

/** A CSV engine: the header record and a batch's records (`place` names the batch in errors), LF-terminated. */
interface CsvWriter {
  header(neutraliseFormulas: boolean, table: Table): string;
  rows(rows: readonly Row[], place: string, neutraliseFormulas: boolean, table: Table): string | Uint8Array;
}

/** The engines, the one place they are named; csv-stringify is loaded only for a run that writes with it. */
const ENGINES: Record<CsvEngine, () => Promise<CsvWriter>> = {
  builtin: () => Promise.resolve({ header: formatCsvHeader, rows: formatCsvRows }),
  'csv-stringify': async () => {
    const { stringifyCsvHeader, stringifyCsvRows } = await import('./csv-stringify-format.js');
    return { header: stringifyCsvHeader, rows: stringifyCsvRows };
  },
};

/** Options of `toCsv`. */
export interface CsvSinkOptions {
  /** Path of the `.csv` file to publish; required. */
  path: string;
  /**
   * Prefix `'` to string values starting with `=`, `+`, `-`, `@`, tab or CR (and their full-width forms) against
   * spreadsheet formula injection; numbers are never touched; default true.
   */
  neutraliseFormulas?: boolean;
  /**
   * Writer: 'builtin' (img-etl's own formatter, several times faster) or 'csv-stringify' (the library); default
   * 'builtin'.
   */
  engine?: CsvEngine;
  /** The table the rows are of; default the images. */
  table?: Table;
}

/** Writes the rows of every batch to a CSV file at `options.path`, atomically; rejects are not written. */
export function toCsv(source: AsyncIterable<RowBatch>, options: CsvSinkOptions): Promise<SinkResult> {
  return writeSinkFile(source, 'csv', options.path, (file) => writeCsvFile(source, file, options));
}

/** Writes the header and every batch's rows into `file` with the engine (not committed); the rows written. */
async function writeCsvFile(
  source: AsyncIterable<RowBatch>,
  file: AtomicFile,
  options: CsvSinkOptions,
): Promise<number> {
  const engineName = options.engine ?? 'builtin';
  const engine = await engineOf('csv', ENGINES, engineName)();
  const neutralise = options.neutraliseFormulas ?? true;
  const table = options.table ?? IMAGES;
  const encode = (format: () => string | Uint8Array): string | Uint8Array => {
    try {
      return format();
    } catch (cause) {
      // a LoadError (a value of the wrong type) passes through
      throw encodeFailed(`writing csv file ${options.path}`, cause);
    }
  };
  await file.write(encode(() => engine.header(neutralise, table)));
  let rows = 0;
  const builtin = engineName === 'builtin'; // the staged records are the builtin writer's
  for await (const batch of source) {
    const staged = builtin ? stagedCsvOf(batch, neutralise, table) : undefined;
    const count = rowCount(batch);
    if (staged !== undefined) await file.write(staged);
    else if (count > 0) await file.write(encode(() => engine.rows(batch.rows, batch.source.url, neutralise, table)));
    rows += count;
  }
  return rows;
}
