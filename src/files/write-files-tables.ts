/**
 * Writing the files table in the formats a run asks for, from one pass over its rows: files.parquet (parquet-wasm,
 * `link` and `status` dictionary-encoded), files.arrow (the snapshots' Arrow IPC writer) and files.csv (RFC 4180 as
 * the snapshots' CSV: an empty field is null, text with a formula's first character gets a `'`). Each is written under
 * a temporary name and renamed into place once whole (AtomicFile).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordBatch, Schema } from 'apache-arrow';
import type { AtomicFile } from '../load/file-system/atomic-file.js';
import { writeSinkFile } from '../load/write-sink-file.js';
import { writeParquetWasm } from '../load/parquet/parquet-wasm-writer.js';
import type { SinkResult } from '../load/sink-result.js';
import { tee } from '../load/tee.js';
import { writeArrowBatches } from '../load/arrow/to-arrow.js';
import type { Format } from '../snapshot/formats.js';
import { csvText } from '../schema/encoding/csv-field.js';
import { settleAll } from '../text/settle-all.js';
import type { FileRow } from './file-status.js';
import { FILE_COLUMNS, FILES_TABLES, fileBatch, filesSchema } from './files-table.js';

/** A page of the table's rows with its record batch, built once for the Parquet and Arrow writers. */
interface Page {
  rows: readonly FileRow[];
  batch: RecordBatch;
}

/**
 * Writes the rows of `source` (pages) to the table in each of `formats` in `dir` (default files.parquet alone),
 * publishing each once all are written; resolves to the files written, in the order of `formats`.
 */
export async function writeFilesTables(
  source: AsyncIterable<FileRow[]>,
  dir: string,
  metadata: Record<string, string> = {},
  formats: readonly Format[] = ['parquet'],
): Promise<SinkResult[]> {
  const schema = filesSchema(metadata);
  const pages = async function* (): AsyncGenerator<Page> {
    for await (const rows of source) if (rows.length > 0) yield { rows, batch: fileBatch(schema, rows) };
  };
  const streams = tee(pages(), formats.length);
  const written = formats.map((format, i) => writeOne(format, streams[i]!, join(dir, FILES_TABLES[format]), schema));
  const tables = await settleAll(written);
  // An earlier run's table in a format not written now would still say what that run found (ok for a file this run
  // found gone, say), and a next run would read it as what vouches for the files.
  for (const format of Object.keys(FILES_TABLES) as Format[])
    if (!formats.includes(format)) await rm(join(dir, FILES_TABLES[format]), { force: true });
  return tables;
}

/** Writes one format's file at `path` from the pages, publishing it once whole. */
function writeOne(format: Format, pages: AsyncIterable<Page>, path: string, schema: Schema): Promise<SinkResult> {
  return writeSinkFile(pages, format, path, async (file) => {
    let rows = 0;
    const batches = async function* (): AsyncGenerator<RecordBatch> {
      for await (const page of pages) {
        rows += page.rows.length;
        yield page.batch;
      }
    };
    const empty = () => fileBatch(schema, []);
    if (format === 'parquet') {
      const metadata = Object.fromEntries(schema.metadata);
      const options = { rowGroupSize: 25_000, metadata, empty: empty(), dictionaryColumns: ['link', 'status'] };
      await writeParquetWasm(batches(), file, options);
    } else if (format === 'arrow') await writeArrowBatches(batches(), file, { schema, empty, path });
    else rows = await writeCsv(pages, file);
    return rows;
  });
}

/** The header and every row as CSV into `file`; the rows written. */
async function writeCsv(pages: AsyncIterable<Page>, file: AtomicFile): Promise<number> {
  await file.write(`${FILE_COLUMNS.map(([name]) => name).join(',')}\n`);
  let rows = 0;
  for await (const page of pages) {
    await file.write(page.rows.map(csvRecord).join(''));
    rows += page.rows.length;
  }
  return rows;
}

/** One row as a CSV record: numbers as written, text quoted where it must be, null as an empty field. */
function csvRecord(row: FileRow): string {
  const fields = FILE_COLUMNS.map(([name]) => {
    const value = row[name];
    if (value === null) return '';
    return typeof value === 'string' ? csvText(value, true) : String(value);
  });
  return `${fields.join(',')}\n`;
}
