import { join } from 'node:path';
import { writeTextAtomic } from '../load/write-text-atomic.js';
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

/** The report as `htmlPath` and its numbers as `jsonPath`. */
export async function writeReport(data: ReportData, title: string, html: string, json: string): Promise<SinkResult[]> {
  return [
    await writeFile(html, renderReportHtml(data, title), 'report', data.records),
    await writeFile(json, JSON.stringify(data, null, 2) + '\n', 'report', data.records),
  ];
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
