/** Writes a snapshot's report files (report.html, report.json, load.sql, load.py): no page without its numbers. */
import { join } from 'node:path';
import { AtomicFile } from '../load/file-system/atomic-file.js';
import { folderInTheWay } from '../load/file-system/file-system-error.js';
import { isFolder } from '../load/file-system/path-kind.js';
import { writeTextAtomic } from '../load/file-system/write-text-atomic.js';
import type { SinkResult } from '../load/sink-result.js';
import { FILE_NAMES } from '../snapshot/formats.js';
import { loadPy } from './load-py.js';
import { loadSql } from './load-sql.js';
import type { LoaderInputs } from './loader-inputs.js';
import type { ReportData } from './report-data.js';
import { renderReportHtml } from './render-report-html.js';

async function writeFile(path: string, text: string, format: SinkResult['format'], rows: number): Promise<SinkResult> {
  return { format, path, rows, ...(await writeTextAtomic(path, text)) };
}

/**
 * The report as `html` and its numbers as `json`, published together: both written whole, and neither published
 * when a folder is in the way of either (the one thing that fails a rename once the files are written), so that a
 * report that cannot be finished leaves no page without its numbers.
 */
export async function writeReport(data: ReportData, title: string, html: string, json: string): Promise<SinkResult[]> {
  const texts = [
    [html, renderReportHtml(data, title)],
    [json, JSON.stringify(data, null, 2) + '\n'],
  ] as const;
  const files: AtomicFile[] = [];
  try {
    for (const [path, text] of texts) {
      files.push(await AtomicFile.create(path));
      await files.at(-1)!.write(text);
    }
    for (const [path] of texts) if (await isFolder(path)) throw folderInTheWay(path);
    const results: SinkResult[] = [];
    for (const file of files)
      results.push({ format: 'report', path: file.path, rows: data.records, ...(await file.commit()) });
    return results;
  } catch (error) {
    for (const file of files) await file.abort();
    throw error;
  }
}

/** report.html, report.json, load.sql and load.py into a snapshot folder; `title` names the snapshot on the page. */
export async function writeReportFiles(
  dir: string,
  data: ReportData,
  title: string,
  loaders: LoaderInputs,
): Promise<SinkResult[]> {
  return [
    ...(await writeReport(data, title, join(dir, FILE_NAMES.report), join(dir, FILE_NAMES.reportJson))),
    await writeFile(join(dir, FILE_NAMES.loadSql), loadSql(loaders), 'loader', data.records),
    await writeFile(join(dir, FILE_NAMES.loadPy), loadPy(loaders), 'loader', data.records),
  ];
}
