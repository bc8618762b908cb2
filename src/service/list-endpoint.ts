/** GET/HEAD /api/images/: one page of the list, with the configured faults, latency and worker limit. */
import { BodyWriter } from './body-writer.js';
import type { FaultDecision } from './faults.js';
import { isOrphan } from './faults.js';
import { pageLinks, pageWindow, requestedPage } from './pagination.js';
import { jsonNullableString } from './python-json.js';
import { serveView, type ViewAnswer, type ViewRequest } from './serve-view.js';
import type { ServiceContext } from './service-context.js';

/** Serves one list request to completion (or to its injected failure). */
export function serveList(ctx: ServiceContext, request: ViewRequest): Promise<void> {
  ctx.stats.listRequests++;
  return serveView(ctx, request, (decision) => listPage(ctx, request, decision));
}

function listPage(ctx: ServiceContext, request: ViewRequest, decision: FaultDecision): ViewAnswer {
  const { dataset, faults, stats } = ctx;
  if (decision.unstable && faults.unstableOrderMode === 'move') {
    stats.mutations.moved += dataset.moveToEnd(faults.moveCount, decision.random).length;
  }
  const count = dataset.size;
  const { limit, offset } = requestedPage(request.pairs);
  const window = pageWindow(count, limit, offset);
  const links = pageLinks(`${request.origin}${request.path}`, request.pairs, window);
  const rotated = decision.unstable && faults.unstableOrderMode === 'rotate' && count > 1;
  const rotation = rotated ? Math.floor(decision.rotation * count) : 0;
  if (rotated) stats.rotatedScans++;
  const body = new BodyWriter(64 + (window.end - window.start) * 2048);
  body.write(`{"count":${count},"next":${jsonNullableString(links.next)},"previous":${jsonNullableString(links.previous)},"results":[`);
  let records = 0;
  for (let i = window.start; i < window.end; i++) {
    const id = dataset.idAt(rotation === 0 ? i : (i + rotation) % count);
    if (isOrphan(faults, id)) {
      stats.orphansDropped++;
      continue;
    }
    if (records > 0) body.write(',');
    body.write(dataset.recordJson(id, request.origin));
    records++;
  }
  body.write(']}');
  const onSent = (): void => {
    stats.pagesServed++;
    stats.recordsServed += records;
  };
  return { status: 200, json: body.bytes(), records, onSent };
}
