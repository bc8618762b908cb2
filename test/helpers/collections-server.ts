/**
 * A scripted service with the collection endpoints over real loopback HTTP: the image list, the collections list and
 * each collection's own list, for what the bundled service has no knob for: a collection the collections list does not
 * show, a `count` that grows, a collection's list that leaves a record out, a proxy's page in place of a list.
 */
import type { ServerResponse } from 'node:http';
import { madeRecords } from './list-server.js';
import { sendJson, startScriptedServer, type ScriptedServer } from './scripted-server.js';

/** What the service holds and how its lists misstate it. */
export interface CollectionsScript {
  /** The records the image list counts, in list order, each with its `collection_id`. */
  records: readonly Record<string, unknown>[];
  /** Ids the image list counts but never serves; default none. */
  unserved?: readonly number[];
  /** `count` of the image list for the page at `offset`; default the number of records. */
  count?: (offset: number) => number;
  /** Collections the collections list shows; default every collection of the records. */
  listed?: readonly number[];
  /** Ids a collection's own list leaves out, of its results and of its `count`; default none. */
  omitted?: readonly number[];
  /** A raw answer in place of a collection's own list (a proxy's page); undefined serves the list. */
  answer?: (collection: number) => { status: number; type: string; body: string } | undefined;
}

/** `n` made records (see madeRecords) in `collection`, ids from `first`, naming no NIDM results package. */
export function recordsIn(collection: number, n: number, first: number): Record<string, unknown>[] {
  return madeRecords(n, first).map((r) => ({ ...r, collection_id: collection, nidm_results: null }));
}

/** Serves the script with DRF's LimitOffsetPagination envelope; an unknown path answers DRF's 404. */
export async function startCollectionsServer(script: CollectionsScript): Promise<ScriptedServer> {
  const { records } = script;
  const collectionOf = (r: Record<string, unknown>) => r['collection_id'] as number;
  const all = [...new Set(records.map(collectionOf))].sort((a, b) => a - b);
  const collections = (script.listed ?? all).map((id) => ({
    id,
    name: `collection ${id}`,
    number_of_images: records.filter((r) => collectionOf(r) === id).length,
    modify_date: '2024-01-02T03:04:05.000006Z',
  }));
  const unserved = new Set(script.unserved ?? []);
  const omitted = new Set(script.omitted ?? []);
  return startScriptedServer((req, res, origin) => {
    const url = new URL(req.url ?? '/', origin);
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const page = (listed: readonly unknown[], count = listed.length) =>
      sendPage(res, url, { count, limit, offset, results: listed.slice(offset, offset + limit) });
    if (url.pathname === '/api/images/') {
      const served = records.filter((r) => !unserved.has(r['id'] as number));
      const count = script.count?.(offset) ?? records.length;
      return sendPage(res, url, { count, limit, offset, results: served.slice(offset, offset + limit) });
    }
    if (url.pathname === '/api/collections/') return page(collections);
    const own = /^\/api\/collections\/(\d+)\/images\/$/.exec(url.pathname);
    if (own === null || !all.includes(Number(own[1]))) return sendJson(res, { detail: 'Not found.' }, 404);
    const answer = script.answer?.(Number(own[1]));
    if (answer !== undefined) {
      res.writeHead(answer.status, { 'content-type': answer.type, 'content-length': Buffer.byteLength(answer.body) });
      return res.end(answer.body);
    }
    const inIdOrder = records
      .filter((r) => collectionOf(r) === Number(own[1]) && !omitted.has(r['id'] as number))
      .sort((a, b) => (a['id'] as number) - (b['id'] as number));
    return page(inIdOrder);
  });
}

function sendPage(
  res: ServerResponse,
  url: URL,
  page: { count: number; limit: number; offset: number; results: readonly unknown[] },
): void {
  const { count, limit, offset, results } = page;
  const next = offset + limit < count ? `${url.origin}${url.pathname}?limit=${limit}&offset=${offset + limit}` : null;
  sendJson(res, { count, next, previous: null, results });
}
