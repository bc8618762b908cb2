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
  const { dataset, faults, stats } = ctx;
  const { moved, start } = unorderedScan(ctx, decision, {
    rows: dataset.size,
    moveToEnd: (count, random) => dataset.moveToEnd(count, random),
  });
  stats.mutations.moved += moved;
  const count = dataset.size;
  const page = pageBody(request, count, (i) => {
    const id = dataset.idAt((i + start) % count);
    if (isOrphan(faults, id)) {
      stats.orphansDropped++;
      return undefined;
    }
    return dataset.recordJson(id, request.origin);
  });
  const onSent = (): void => {
    stats.pagesServed++;
    stats.recordsServed += page.items;
    stats.imageRecordsServed += page.items;
  };
  return { status: 200, json: page.json, records: page.items, onSent };
}
