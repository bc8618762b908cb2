/**
 * Before a run resumes, a sample of its staged records is fetched again by id and compared: offsets do not identify
 * records on a list with no stable order, so where too many are gone or changed the staging is not merged.
 */
import type { Checkpoint } from './checkpoint.js';
import type { JournalPage } from './journal.js';
import { fetchImage } from '../paging/fetch-image.js';
import { HttpClient } from '../paging/http-client.js';
import { listUrlOf } from '../paging/page-url.js';
import type { PaginateOptions } from '../paging/paginate.js';
import { DEFAULT_BASE_URL, DEFAULT_CONCURRENCY } from '../defaults.js';

/** Staged records fetched again at most. */
export const STAGING_SAMPLE = 20;

/** Share of the sample that may be gone or changed before the staging is discarded: 10%. */
export const MAX_STAGING_DRIFT = 0.1;

/** What the check found. */
export interface StagingCheck {
  /** Staged records fetched again. */
  sampled: number;
  /** Of those, the ids the service no longer lists (404) and those whose record differs now. */
  gone: number[];
  changed: number[];
  /** Whether so many differ that the staging should be discarded. */
  stale: boolean;
  /** Requests sent, failed attempts included. */
  requests: number;
}

/** Fetches a sample of the staged records by id, `concurrency` at a time, and compares each with its staged copy. */
export async function checkStaging(checkpoint: Checkpoint, options: PaginateOptions): Promise<StagingCheck> {
  const sample = sampleOf(checkpoint.entries.filter((e): e is JournalPage => e.type === 'page' && e.file !== null));
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const client = new HttpClient(listUrlOf(baseUrl), { connections: concurrency, ...options.http });
  const gone: number[] = [];
  const changed: number[] = [];
  let requests = 0;
  const onEvent: PaginateOptions['onEvent'] = (event) => {
    if (event.type === 'retry') requests++;
    options.onEvent?.(event);
  };
  try {
    const queue = [...sample];
    const worker = async (): Promise<void> => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const { page, position, id } = next;
        const staged = (await checkpoint.readPage(page.file!)).records[position];
        requests++;
        const now = await fetchImage(id, { baseUrl, client, retry: options.retry, signal: options.signal, onEvent });
        if (now.status === 'gone') gone.push(id);
        else if (JSON.stringify(now.record) !== JSON.stringify(staged)) changed.push(id);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, sample.length)) }, worker));
  } finally {
    await client.close().catch(() => undefined);
  }
  gone.sort((a, b) => a - b);
  changed.sort((a, b) => a - b);
  const stale = gone.length + changed.length > sample.length * MAX_STAGING_DRIFT;
  return { sampled: sample.length, gone, changed, stale, requests };
}

/** Up to STAGING_SAMPLE valid records spread evenly over the staged ones, in staging order. */
function sampleOf(pages: readonly JournalPage[]): { page: JournalPage; position: number; id: number }[] {
  const total = pages.reduce((n, p) => n + p.ids.filter((id) => id !== null && id > 0).length, 0);
  const picks = new Set(
    Array.from({ length: Math.min(STAGING_SAMPLE, total) }, (_, k) =>
      Math.floor((k * total) / Math.min(STAGING_SAMPLE, total)),
    ),
  );
  const sample: { page: JournalPage; position: number; id: number }[] = [];
  let n = 0;
  for (const page of pages) {
    page.ids.forEach((id, position) => {
      if (id === null || id <= 0) return;
      if (picks.has(n++)) sample.push({ page, position, id });
    });
  }
  return sample;
}
