/** GET/HEAD /api/images/: one page of the list, with the configured faults, latency and worker limit. */
import type { FaultDecision } from '../faults/faults.js';
import { isOrphan } from '../faults/faults.js';
import { pageBody } from '../http/page-body.js';
import { serveView, type ViewAnswer, type ViewRequest } from '../http/serve-view.js';
import type { ServiceContext } from '../service-context.js';
import { unorderedScan } from '../faults/unordered-scan.js';

/** Serves one list request to completion (or to its injected failure). */
export function serveList(ctx: ServiceContext, request: ViewRequest): Promise<void> {
  ctx.stats.listRequests++;
  return serveView(ctx, request, (decision) => listPage(ctx, request, decision));
}

function listPage(ctx: ServiceContext, request: ViewRequest, decision: FaultDecision): ViewAnswer {
  const { dataset, stats } = ctx;
  const { moved, start } = unorderedScan(ctx, decision, dataset, dataset.size);
  stats.mutations.moved += moved;
  const count = dataset.size;
  const page = pageBody(request, count, (i) => servedRecord(ctx, dataset.idAt((i + start) % count), request.origin));
  const onSent = (): void => {
    stats.pagesServed++;
    stats.recordsServed += page.items;
    stats.imageRecordsServed += page.items;
  };
  return { status: 200, json: page.json, records: page.items, onSent };
}

/** A listed record's JSON as served from `origin`; undefined for an orphan (counted, then dropped from the page). */
export function servedRecord(ctx: ServiceContext, id: number, origin: string): string | undefined {
  // Rows whose polymorphic child is missing are counted in `count`, then dropped.
  if (!isOrphan(ctx.faults, id)) return ctx.dataset.recordJson(id, origin);
  ctx.stats.orphansDropped++;
  return undefined;
}
