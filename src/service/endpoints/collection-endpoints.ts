/**
 * The collection endpoints of NeuroVault's CollectionViewSet: `/api/collections/` (public collections in
 * the table's unordered scan), `/api/collections/<pk>/` and `/api/collections/<pk>/images/` (ordered by id),
 * with `get_collection`'s statuses and the faults, latency and workers of the image list.
 */
import { collectionJson } from '../dataset/collection-json.js';
import type { CollectionEntry } from '../collections/collection-registry.js';
import { collectionImageIds } from '../collections/collection-image-ids.js';
import { FORBIDDEN, NOT_FOUND } from './image-endpoint.js';
import { servedRecord } from './list-endpoint.js';
import { pageBody } from '../http/page-body.js';
import { pythonInt } from '../http/query-params.js';
import { serveView, type ViewAnswer, type ViewRequest } from '../http/serve-view.js';
import type { ServiceContext } from '../service-context.js';
import { unorderedScan } from '../faults/unordered-scan.js';

// `get_collection`: eight uppercase letters are a private token, anything else goes to `pk=`.
const TOKEN = /^[A-Z]{8}$/;

/** What `get_collection(pk)` finds: the collection, or the status of the exception it raises. */
export type FoundCollection = { entry: CollectionEntry } | { status: 403 | 404 | 500 };

/**
 * `get_collection(pk, request, mode="api")`: a token finds its private collection (404 for an unknown one);
 * a number finds a public collection, 403 for a private one (for everyone, the owner too), 404 for none;
 * any other pk (`abc`) makes `Collection.objects.get(pk=...)` raise ValueError: 500.
 */
export function findCollection(ctx: ServiceContext, pk: string): FoundCollection {
  const { collections } = ctx.dataset;
  if (TOKEN.test(pk)) {
    const entry = collections.byToken(pk);
    return entry === undefined ? { status: 404 } : { entry };
  }
  const value = pythonInt(pk);
  if (value === undefined) return { status: 500 };
  const entry = value > 0n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? collections.get(Number(value)) : undefined;
  if (entry === undefined) return { status: 404 };
  return entry.private ? { status: 403 } : { entry };
}

/** Serves GET or HEAD on `/api/collections/`: a page of public collections in scan order. */
export function serveCollectionList(ctx: ServiceContext, request: ViewRequest): Promise<void> {
  ctx.stats.collectionRequests++;
  return serveView(ctx, request, (decision) => {
    const { collections } = ctx.dataset;
    // The query has no ORDER BY either: the unstable-order knobs act on this scan as on the image list's.
    const { start } = unorderedScan(ctx, decision, collections, collections.publicCount);
    const count = collections.publicCount;
    const page = pageBody(request, count, (i) => {
      const cid = collections.publicAt((i + start) % count);
      return collectionJson(ctx.dataset, collections.get(cid) as CollectionEntry, request.origin);
    });
    return { status: 200, json: page.json, records: page.items };
  });
}

/** Serves GET or HEAD on `/api/collections/<pk>/`. */
export function serveCollection(ctx: ServiceContext, request: ViewRequest, pk: string): Promise<void> {
  ctx.stats.collectionRequests++;
  return serveView(ctx, request, () => {
    const found = findCollection(ctx, pk);
    if (!('entry' in found)) return failed(found.status);
    const json = Buffer.from(collectionJson(ctx.dataset, found.entry, request.origin), 'utf8');
    return { status: 200, json, records: 1 };
  });
}

/** Serves GET or HEAD on `/api/collections/<pk>/images/`: the collection's images by id, paged like the list. */
export function serveCollectionImages(ctx: ServiceContext, request: ViewRequest, pk: string): Promise<void> {
  ctx.stats.collectionRequests++;
  return serveView(ctx, request, () => {
    const found = findCollection(ctx, pk);
    if (!('entry' in found)) return failed(found.status);
    const ids = collectionImageIds(ctx.dataset, found.entry);
    // Orphans are counted, then dropped, as on the image list.
    const page = pageBody(request, ids.length, (i) => servedRecord(ctx, ids[i] as number, request.origin));
    ctx.stats.imageRecordsServed += page.items;
    return { status: 200, json: page.json, records: page.items };
  });
}

function failed(status: 403 | 404 | 500): ViewAnswer {
  if (status === 500) return { status, crash: true, json: Buffer.alloc(0), records: 0 };
  return { status, json: Buffer.from(status === 403 ? FORBIDDEN : NOT_FOUND), records: 0 };
}
