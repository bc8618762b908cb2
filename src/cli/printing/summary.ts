/** The end-of-run summary: text for people, or one JSON document for programs (`--summary json`). */
import { join } from 'node:path';
import type { SnapshotResult } from '../../run/run-snapshot.js';
import type { Manifest } from '../../run/publish/manifest.js';
import type { PrunedSnapshot } from '../../run/publish/snapshot-folders.js';
import { FILE_NAMES } from '../../snapshot/formats.js';
import { formatBytes } from './human-numbers.js';
import { conflictLine, missingLine } from './progress.js';

/** What the command line did after the run, beyond the result: a `--snapshot` run's latest link and pruned folders. */
export interface SummaryExtras {
  /** The `latest` link and the snapshot folder it now points to. */
  latest?: { link: string; target: string };
  /** Snapshot folders deleted by `--keep`, and why. */
  pruned?: PrunedSnapshot[];
}

/**
 * `--summary json`: the end of a run as one document, derived from the manifest (the collections table's rows written
 * and rejects, or the one-line reason there is none; the completeness method with the line the text summary gives).
 */
export type SummaryDocument = ReturnType<typeof summaryDocument>;

/** The end-of-run summary as data: records, files with sizes and digests, time, completeness. */
export function summaryDocument(result: SnapshotResult, extras: SummaryExtras = {}) {
  const m = result.manifest;
  return {
    complete: m.complete,
    source_url: m.source_url,
    started_at: m.started_at,
    finished_at: m.finished_at,
    duration_seconds: durationSeconds(result),
    records: {
      written: m.records_written,
      expected: m.expected,
      received: m.received,
      missing: m.missing,
      duplicates_dropped: m.duplicates_dropped,
      rejects: m.rejects,
    },
    pages: {
      fetched: m.pages_fetched,
      page_size: m.page_size,
      passes: m.passes.length,
      retries: m.retries,
      skipped_offsets: m.skipped_offsets,
    },
    collections:
      'absent' in m.collections
        ? { absent: m.collections.absent }
        : { written: m.collections.records_written, rejects: m.collections.rejects },
    requests: m.requests,
    completeness: { method: m.completeness.method, proof: proofLine(m), unreadable: m.completeness.unreadable },
    files: summaryFiles(result),
    manifest: result.manifestPath,
    ...(extras.latest === undefined ? {} : { latest: extras.latest }),
    ...(extras.pruned === undefined || extras.pruned.length === 0 ? {} : { pruned: extras.pruned }),
  };
}

/** Every file the run wrote, with its path in the snapshot's folder. */
function summaryFiles(result: SnapshotResult) {
  return result.manifest.files.map((f) => ({
    name: f.name,
    path: join(result.dataDir, f.name),
    format: f.format,
    rows: f.rows,
    bytes: f.bytes,
    sha256: f.sha256,
  }));
}

/** `--summary json`: the summary document as JSON text, one document ending in a newline. */
export function formatSummaryJson(result: SnapshotResult, extras: SummaryExtras = {}): string {
  return `${JSON.stringify(summaryDocument(result, extras), null, 2)}\n`;
}

/** The end-of-run summary for people: records, files with sizes, time, completeness. */
export function formatSummary(result: SnapshotResult, extras: SummaryExtras = {}): string {
  const m = result.manifest;
  const seconds = durationSeconds(result);
  const lines = [
    `img-etl: ${m.complete ? 'complete' : 'INCOMPLETE'} snapshot of ${m.source_url}`,
    `  records   ${recordsLine(m)}`,
    `  pages     ${pagesLine(m)}, ${plural(m.retries, 'retry', 'retries')}, ` +
      `${seconds.toFixed(1)} s (${rateOf(m, seconds)})`,
    `  requests  ${requestsLine(m)}`,
    `  proof     ${proofLine(m)}`,
    ...m.completeness.unreadable.map((u) => `  left out  ${unreadableLine(u)}`),
    ...(m.completeness.reconciliation.removed > 0
      ? [`  removed   ${removedLine(m.completeness.reconciliation.removed)}`]
      : []),
    ...(m.conflicts.count > 0 ? [`  changed   ${conflictLine(m.conflicts.count, m.conflicts.first_ids)}`] : []),
    ...(m.skipped_offsets.length > 0
      ? [`  skipped   records at offsets ${m.skipped_offsets.join(', ')}: the server could not serve them`]
      : []),
    ...m.files.map((f) => `  ${f.format.padEnd(9)} ${join(result.dataDir, f.name)}  ${fileCount(f, m)}`),
    // Said once: without collection endpoints the proof line gives the same reason.
    ...('absent' in m.collections && m.collections.absent !== proofLine(m)
      ? [`  collections ${m.collections.absent}`]
      : []),
    `  manifest  ${result.manifestPath}`,
    ...(extras.latest === undefined ? [] : [`  latest    ${extras.latest.link} -> ${extras.latest.target}`]),
    ...(extras.pruned ?? []).map((p) => `  pruned    ${p.name} (${p.reason})`),
  ];
  return lines.join('\n') + '\n';
}

/**
 * A file's size and what it counts: a data file its rows, a report the rows written it covers; a loader (a script that
 * reads the data files) has no rows of its own; the normalisation counts one line per collection that has counts.
 */
function fileCount(f: Manifest['files'][number], m: Manifest): string {
  if (f.format === 'loader') return formatBytes(f.bytes);
  if (f.name === FILE_NAMES.normalisation)
    return `${formatBytes(f.bytes)}, counts of ${plural(f.rows, 'collection', 'collections')}`;
  if (f.format === 'report')
    return `${formatBytes(f.bytes)}, covers the ${plural(m.records_written, 'row', 'rows')} written`;
  return `${formatBytes(f.bytes)}, ${plural(f.rows, 'row', 'rows')}`;
}

/**
 * Records written (after a pipeline's stages, saying how many they left out) and rejected against what the service
 * counted, true whichever way `count` moved.
 */
function recordsLine(m: Manifest): string {
  const counted =
    m.count_at_start === m.count_at_end
      ? `the service counts ${m.count_at_end}`
      : `the service counted ${m.count_at_start} at the start and ${m.count_at_end} at the end`;
  const leftOut = m.received - m.rejects - m.records_written;
  const stages = leftOut > 0 ? ` (${leftOut} of ${m.received - m.rejects} left out by the pipeline's stages)` : '';
  return (
    `${m.records_written} written${stages}, ${m.rejects} rejected; ${counted}: ${m.missing} ` +
    `missing, ${plural(m.duplicates_dropped, 'duplicate', 'duplicates')} dropped`
  );
}

/**
 * Records a second: of the records the run held, or for an incremental run of those it read (the rows it carried over
 * from its base cost no request).
 */
function rateOf(m: Manifest, seconds: number): string {
  const inc = m.completeness.incremental;
  const read = inc === undefined ? m.received : Math.max(0, m.received - inc.carried_records);
  const rate = `${Math.round(read / Math.max(seconds, 0.001))} records/s`;
  return inc === undefined ? rate : `${plural(read, 'record', 'records')} read, ${rate}`;
}

/** Pages fetched, the page size when the server applied one, and the passes. */
function pagesLine(m: Manifest): string {
  const inc = m.completeness.incremental;
  if (inc !== undefined)
    return (
      `no pass over the image list: built on ${inc.base}, ${plural(inc.carried_records, 'row', 'rows')} of ` +
      `${plural(inc.carried_collections, 'collection', 'collections')} carried over`
    );
  const size = m.page_size > 0 ? ` of up to ${m.page_size} records` : '';
  return `${plural(m.pages_fetched, 'page', 'pages')}${size} fetched in ${plural(m.passes.length, 'pass', 'passes')}`;
}

/** Requests per endpoint, and per record written. */
function requestsLine(m: Manifest): string {
  const r = m.requests;
  const all = r.images + r.collections + r.collection_images + r.image;
  const perRecord = m.records_written > 0 ? `, ${(all / m.records_written).toFixed(4)} per record` : '';
  return (
    `${all}: ${r.images} images, ${r.collections} collections, ` +
    `${r.collection_images} collection_images, ${r.image} image${perRecord}`
  );
}

/** How completeness was established, one line. */
export function proofLine(m: Manifest): string {
  const c = m.completeness;
  if (c.method === 'passes')
    return c.note ?? `the image list's count over ${plural(m.passes.length, 'pass', 'passes')}`;
  const list = `collections list ${c.collections.received} of ${c.collections.expected}`;
  const r = c.reconciliation;
  if (c.incremental !== undefined) return incrementalProofLine(m, c.incremental);
  if (c.images.proven) {
    const proof = 'one pass over the images, complete by count (nothing repeated, count unchanged)';
    if (r.collections === 0) return `${proof}; ${list}, read before and after, unchanged`;
    const read = `${plural(r.collections, 'collection', 'collections')} changed while it ran, read in id order`;
    return `${proof}; ${read}: +${r.added} records, -${r.removed}; ${list}, read before and after`;
  }
  const read = `${plural(r.collections, 'collection', 'collections')} short, changed or unlisted, read in id order`;
  const missing = missingLine(r.missing, { unserved: r.unserved, expected: m.expected, received: m.received }, String);
  return `one pass over the images, then ${read}: +${r.added} records, ${missing}; ${list}, read before and after`;
}

/**
 * An incremental run's proof, one line: what it read and carried over, held to the image list's count. The records read
 * take the place of the base's rows not carried over (of the collections read and those gone): the difference is what
 * changed since the base.
 */
function incrementalProofLine(m: Manifest, inc: NonNullable<Manifest['completeness']['incremental']>): string {
  const read = `${plural(inc.read_collections, 'collection', 'collections')} new or changed, read in id order`;
  const vanished = inc.vanished_collections;
  const gone = vanished > 0 ? `, ${plural(vanished, 'collection', 'collections')} gone` : '';
  const [now, was] = [m.received - inc.carried_records, inc.base_records - inc.carried_records];
  const replaced = `${now} records in place of the base's ${was}: ${now >= was ? '+' : ''}${now - was}`;
  const missing = m.missing > 0 ? ` plus the ${m.missing} missing` : '';
  const list = `collections list ${m.completeness.collections.received} of ${m.completeness.collections.expected}`;
  return (
    `incremental since ${inc.base} (last full pass ${m.last_full_at}): ${read}${gone} (${replaced}), ` +
    `${inc.carried_collections} carried over; the image list counts ${inc.count}, ` +
    `the rows held${missing}; ${list}, read before and after`
  );
}

/** Records left out because their collection's own list no longer served them, one line. */
function removedLine(removed: number): string {
  const what = plural(removed, 'record', 'records');
  const why =
    removed === 1 ? "its collection's list no longer served it" : "their collections' lists no longer served them";
  return `${what} deleted while the run paged: ${why}`;
}

/** A collection that could not be read, one line. */
function unreadableLine(u: Manifest['completeness']['unreadable'][number]): string {
  const why = u.status === 403 ? 'private now' : u.status === 404 ? 'deleted' : 'unreadable';
  return `collection ${u.id} answered ${u.status} (${why}): ${plural(u.dropped, 'record', 'records')} of it left out`;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function durationSeconds(result: SnapshotResult): number {
  return (Date.parse(result.manifest.finished_at) - Date.parse(result.manifest.started_at)) / 1000;
}
