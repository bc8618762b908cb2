import { join } from 'node:path';
import type { SnapshotResult } from '../run/run-snapshot.js';

/** The end-of-run summary for people: records, files with sizes, time, completeness. */
export function formatSummary(result: SnapshotResult): string {
  const m = result.manifest;
  const seconds = (Date.parse(m.finished_at) - Date.parse(m.started_at)) / 1000;
  const lines = [
    `img-etl: ${m.complete ? 'complete' : 'INCOMPLETE'} snapshot of ${m.source_url}`,
    `  records   ${m.records_written} written of ${m.expected} expected (${m.missing} missing, ${m.duplicates_dropped} duplicates dropped, ${m.rejects} rejected)`,
    `  pages     ${m.pages_fetched} of ${m.page_size} records in ${m.passes.length} ${m.passes.length === 1 ? 'pass' : 'passes'}, ${m.retries} retries, ${seconds.toFixed(1)} s (${Math.round(m.records_written / Math.max(seconds, 0.001))} records/s)`,
    ...(m.skipped_offsets.length > 0 ? [`  skipped   records at offsets ${m.skipped_offsets.join(', ')}: the server could not serve them`] : []),
    ...m.files.map((f) => `  ${f.format.padEnd(9)} ${join(result.dataDir, f.name)}  ${formatBytes(f.bytes)}, ${f.rows} rows`),
    `  manifest  ${result.manifestPath}`,
  ];
  return lines.join('\n') + '\n';
}

/** Bytes as a short human size: `12.3 MB`. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
