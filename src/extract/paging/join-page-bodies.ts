/**
 * Joins the bodies of a page that was fetched in parts back into one body, so that it is staged like any other page.
 */
import type { PageBatch } from '../../schema/row.js';
import { resultSpans } from '../../text/raw-json.js';

const COMMA = Buffer.from(',');
const END = Buffer.from(']}');

/**
 * One page body holding the records of several page bodies in order, each record's text as it was served: the body of
 * a page that was split into halves after failures, so that it is staged as served like any other page.
 */
export function joinPageBodies(count: number, bodies: readonly (Uint8Array | undefined)[]): Buffer {
  const parts: Uint8Array[] = [Buffer.from(`{"count":${count},"next":null,"previous":null,"results":[`)];
  for (const body of bodies) {
    if (body === undefined) continue; // a record skipped after failing alone
    for (const span of resultSpans(body)) {
      if (parts.length > 1) parts.push(COMMA);
      parts.push(body.subarray(span.start, span.end));
    }
  }
  parts.push(END);
  return Buffer.concat(parts);
}

/** The body a page is staged with: as served, or for a batch without one, its records written as a page of the list. */
export function stagedBodyOf(batch: PageBatch): string | Uint8Array {
  return batch.body ?? JSON.stringify({ count: batch.count, next: null, previous: null, results: batch.records });
}
