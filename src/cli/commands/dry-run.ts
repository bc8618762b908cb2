/**
 * `--dry-run`: reads the first page of the image list and of the collections list and prints the run's plan (counts,
 * page size, pages, requests, estimated time and size) without staging or writing anything in `--out`.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ExtractError } from '../../extract/paging/extract-error.js';
import { HttpClient } from '../../extract/paging/http-client.js';
import { noCollectionEndpoints } from '../../extract/completeness/completeness.js';
import { collectionsUrlOf, limitOfLink, listUrlOf, pageUrl } from '../../extract/paging/page-url.js';
import { withRetry } from '../../extract/paging/retry.js';
import type { Format } from '../../snapshot/formats.js';
import { runKindOptions, type SnapshotOptions } from '../../run/run-snapshot.js';
import { writeOutputs } from '../../run/write/write-outputs.js';
import { applyStages } from '../../run/stage-batches.js';
import type { PageBatch, RowBatch } from '../../schema/row.js';
import { normalise } from '../../transform/normalise.js';
import { validate } from '../../transform/validate.js';
import { counted, formatBytes, formatDuration, thousands } from '../printing/human-numbers.js';
import type { Reporter } from '../printing/reporter.js';
import { DEFAULT_BASE_URL, DEFAULT_CONCURRENCY, DEFAULT_PAGE_SIZE } from '../../extract/defaults.js';
import { redactUrl } from '../../extract/paging/redact-url.js';
import { IMAGES } from '../../schema/columns.js';

/**
 * What a run would do, from its first page (docs/json-log.md gives each field): the list's count, page size asked for
 * and applied, pages and concurrency, the first page's time, bytes and records, the estimates, the collections list,
 * and with `--snapshot` the run's kind.
 */
export type DryRunPlan = Awaited<ReturnType<typeof planSnapshot>>;

/**
 * The collections list, read the same way (its first page): its count, the pages of one pass and the first page's
 * time; or, where the service has no collection endpoints (404), why there will be no collections table.
 */
type CollectionsPlan =
  { source_url: string; count: number; pages: number; first_page_ms: number } | { source_url: string; absent: string };

/**
 * Fetches the first page (retrying as a run would) and works out the plan; writes only into a temporary folder it
 * deletes.
 */
export async function planSnapshot(options: SnapshotOptions, reporter: Reporter) {
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
  const listUrl = listUrlOf(baseUrl);
  const requested = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const client = new HttpClient(listUrl, { connections: 1, ...options.http });
  const read = (url: URL) => firstPage(client, url, requested, options, reporter);
  let first: Awaited<ReturnType<typeof read>>;
  let collections: CollectionsPlan;
  try {
    first = await read(listUrl);
    collections = await planCollections(collectionsUrlOf(baseUrl), read);
  } finally {
    await client.close().catch(() => undefined);
  }
  const { url, fetched, ms, pageSize, pages } = first;
  const { page } = fetched;
  const bytes = fetched.bytes.length;
  const batch: PageBatch = { source: { url, offset: 0 }, count: page.count, records: page.results, limit: pageSize };
  // From the first pages' times as reported, so that the plan's own formula gives it.
  // The collections list is read twice: before the pass and after it.
  const listMs =
    pages * Math.round(ms) + ('pages' in collections ? 2 * collections.pages * collections.first_page_ms : 0);
  return {
    dry_run: true as const,
    source_url: listUrl.href,
    count: page.count,
    page_size_requested: requested,
    page_size: pageSize,
    pages,
    concurrency,
    first_page: { ms: Math.round(ms), bytes, records: page.results.length },
    estimated_seconds: Math.round(listMs / concurrency) / 1000,
    estimated_bytes: await estimateSizes(batch, options, listUrl.href),
    estimated_json_bytes: page.results.length === 0 ? bytes : Math.round((bytes / page.results.length) * page.count),
    collections,
    ...(await kindOf(options, listUrl)),
  };
}

/** What a `--snapshot` run would build on now, or why it would make a full pass; nothing for another run. */
async function kindOf(options: SnapshotOptions, listUrl: URL) {
  if (options.snapshot !== true) return {};
  const { plannedKind } = await import('../../run/incremental/run-kind.js');
  const kind = await plannedKind(runKindOptions(options, redactUrl(listUrl.href), new Date()));
  if ('base' in kind)
    return { kind: { kind: 'incremental' as const, base: kind.base.name, last_full_at: kind.base.lastFullAt } };
  return { kind: { kind: 'full' as const, why: kind.full } };
}

/** Fetches a list's first page, retrying as a run would, and times it. */
async function firstPage(
  client: HttpClient,
  listUrl: URL,
  requested: number,
  options: SnapshotOptions,
  reporter: Reporter,
) {
  const url = pageUrl(listUrl, requested, 0);
  let ms = 0;
  const fetched = await withRetry(
    async () => {
      const started = performance.now();
      const got = await client.getPage(url, options.signal);
      ms = performance.now() - started;
      return got;
    },
    options.retry,
    (n) => reporter.onEvent({ type: 'retry', url, attempt: n.attempt, delayMs: n.delayMs, reason: n.error.reason }),
    options.signal,
  );
  const { page } = fetched;
  const pageSize = limitOfLink(page.next) ?? limitOfLink(page.previous) ?? Math.max(page.results.length, requested);
  const pages = page.next === null ? 1 : Math.max(1, Math.ceil(page.count / pageSize));
  return { url, fetched, ms, pageSize, pages };
}

/** The collections list's part of the plan, its first page read by `read`: a 404 means the service has none. */
async function planCollections(url: URL, read: (url: URL) => ReturnType<typeof firstPage>): Promise<CollectionsPlan> {
  try {
    const { fetched, ms, pages } = await read(url);
    return { source_url: url.href, count: fetched.page.count, pages, first_page_ms: Math.round(ms) };
  } catch (err) {
    if (!(err instanceof ExtractError && err.status === 404)) throw err;
    return { source_url: url.href, absent: noCollectionEndpoints(url.href, 404) };
  }
}

/**
 * Writes the page's records in every chosen format, and an empty file of each, into a temporary folder, then
 * extrapolates: empty file + (sample − empty file) / records on the page × count. A small sample compresses worse than
 * the whole list, so Parquet (zstd, dictionaries) tends to come out larger than it will be.
 */
async function estimateSizes(
  batch: PageBatch,
  options: SnapshotOptions,
  sourceUrl: string,
): Promise<Partial<Record<Format, number | null>>> {
  const formats: Format[] = [...new Set<Format>(options.formats ?? ['parquet'])];
  const dir = await mkdtemp(join(tmpdir(), 'img-etl-dry-run-'));
  try {
    const write = (name: string, batches: PageBatch[]) =>
      writeSample(join(dir, name), batches, formats, options, sourceUrl);
    const empty = await write('empty', []);
    const sample = await write('sample', [batch]);
    const estimates: Partial<Record<Format, number | null>> = {};
    for (const format of formats) {
      const e = empty.find((f) => f.format === format);
      const s = sample.find((f) => f.format === format);
      estimates[format] =
        e === undefined || s === undefined || s.rows === 0
          ? null
          : Math.round(e.bytes + ((s.bytes - e.bytes) / batch.records.length) * batch.count);
    }
    return estimates;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The sample's rows as a run gives them to the stages (stage-batches.ts refuses any other order): one batch, in
 * ascending id order, each id once.
 */
async function* inIdOrder(source: AsyncIterable<RowBatch>): AsyncIterable<RowBatch> {
  const batches: RowBatch[] = [];
  for await (const batch of source) batches.push(batch);
  if (batches.length === 0) return;
  const seen = new Set<unknown>();
  const rows = batches
    .flatMap((b) => b.rows)
    .filter((row) => !seen.has(row['id']) && seen.add(row['id']))
    .sort((a, b) => (a['id'] as number) - (b['id'] as number));
  yield { source: batches[0]!.source, rows, rejects: batches.flatMap((b) => b.rejects) };
}

/** Writes `batches` in `formats` into a new folder `outDir` as a snapshot would; what was written. */
async function writeSample(
  outDir: string,
  batches: PageBatch[],
  formats: Format[],
  options: SnapshotOptions,
  sourceUrl: string,
) {
  await mkdir(outDir);
  // what the run writes: the pipeline's table (its derived columns) and the rows its stages keep
  const table = options.table ?? IMAGES;
  const metadata = {
    'img-etl.source_url': sourceUrl,
    'img-etl.schema_version': table.schemaVersion,
    'img-etl.snapshot_time': new Date().toISOString(),
  };
  const sample = inIdOrder(normalise(validate(fromArray(batches), table), undefined, table));
  const rows = applyStages(sample, options.stages ?? []);
  return writeOutputs(rows, {
    outDir,
    table,
    formats,
    parquetEngine: options.parquetEngine,
    csvEngine: options.csvEngine,
    neutraliseFormulas: options.neutraliseFormulas,
    metadata,
  });
}

// eslint-disable-next-line @typescript-eslint/require-await -- items already in hand: nothing to await
async function* fromArray<T>(items: T[]): AsyncIterable<T> {
  yield* items;
}

/** The plan for people: what the numbers are and how each estimate was made. */
export function formatPlan(plan: DryRunPlan): string {
  const { first_page: first } = plan;
  const applied =
    plan.page_size === plan.page_size_requested
      ? 'as asked'
      : `asked for ${plan.page_size_requested}; the server applied ${plan.page_size}`;
  const rounds = Math.ceil(plan.pages / plan.concurrency);
  const lines = [
    `img-etl: dry run of ${plan.source_url}: the first page of each list only; nothing staged or written`,
    `  count       ${thousands(plan.count)} records`,
    `  page size   ${thousands(plan.page_size)} (${applied})`,
    `  pages       ${counted(plan.pages, 'request')}, ${plan.concurrency} at a time (${counted(rounds, 'round')}), ` +
      'before retries and any later pass',
    collectionsLine(plan.collections),
    ...kindLines(plan.kind),
    `  time        about ${formatDuration(plan.estimated_seconds)} (estimate: ` +
      `${counted(plan.pages, 'page')} × ${thousands(first.ms)} ms, the first page's time, ` +
      ('pages' in plan.collections
        ? `+ 2 × ${counted(plan.collections.pages, 'collection page')} × ` +
          `${thousands(plan.collections.first_page_ms)} ms, `
        : '') +
      `/ ${plan.concurrency} at a time)`,
    ...Object.entries(plan.estimated_bytes).map(([format, bytes]) =>
      bytes === null
        ? `  ${format.padEnd(11)} unknown: the first page has no valid record to write`
        : `  ${format.padEnd(11)} ${format === 'parquet' ? 'at most ' : ''}about ` +
          `${formatBytes(bytes)} (estimate: the first page's ${thousands(first.records)} ` +
          `records written as ${format} to a temporary folder, less an empty file, × ` +
          `${thousands(plan.count)} / ${thousands(first.records)}` +
          (format === 'parquet' ? '; the whole list compresses better than one page)' : ')'),
    ),
    `  served JSON about ${formatBytes(plan.estimated_json_bytes)} (estimate: the first ` +
      `page's body, ${formatBytes(first.bytes)}, × ${thousands(plan.count)} / ` +
      `${thousands(first.records)} records)`,
  ];
  return lines.join('\n') + '\n';
}

function collectionsLine(collections: DryRunPlan['collections']): string {
  if (!('pages' in collections)) return `  collections none: ${collections.absent}`;
  return (
    `  collections ${thousands(collections.count)} in ${counted(collections.pages, 'page')} of ` +
    `${collections.source_url}, read before and after the pass for the collections table and the proof of ` +
    'completeness'
  );
}

/** What a `--snapshot` run would build on, one line; none for another run. */
function kindLines(kind: DryRunPlan['kind']): string[] {
  if (kind === undefined) return [];
  if (kind.kind === 'full') return [`  kind        a full pass: ${kind.why}`];
  return [
    `  kind        incremental: built on ${kind.base} (last full pass ${kind.last_full_at}): only the ` +
      'collections that changed since are read, the others carried over; the pages and time below are those of ' +
      'a full pass',
  ];
}
