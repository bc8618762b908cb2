/**
 * GET/HEAD on a data view (the image list, one image, the collection endpoints): the request's faults,
 * a worker held while it is served, the mutations that happen meanwhile, latency, then the answer or the fault.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { finished } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { View } from './drf-views.js';
import { DJANGO_SERVER_ERROR, proxyErrorPage, throttledDetail } from './error-pages.js';
import { decideFaults, type FaultDecision } from '../faults/faults.js';
import type { RendererName } from './negotiate-format.js';
import { rendered, send, sendServerError, viewHeaders } from './respond.js';
import { countStatus, type ServiceContext } from '../service-context.js';

/** What the router worked out about a GET or HEAD on a data view. */
export interface ViewRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** Decoded query parameters in order. */
  pairs: [string, string][];
  renderer: RendererName;
  /** Decoded request path, the base of page links. */
  path: string;
  /** `http://` plus the Host header. */
  origin: string;
  /** The DRF view that answers. */
  view: View;
}

/** A view's answer when no fault intervenes. */
export interface ViewAnswer {
  /** 200, or the status DRF answers (404, 403); 500 with `crash`. */
  status: number;
  /** The view raised an exception DRF does not handle: Django's HTML 500 page, whatever the renderer. */
  crash?: true;
  /** The compact JSON body, UTF-8. */
  json: Buffer;
  /** Records (or collections) in the body; the per-record latency is spent on each. */
  records: number;
  /** Called once the answer is sent complete. */
  onSent?: () => void;
}

/** Serves one GET or HEAD on a data view to completion (or to its injected failure); `answer` builds the body. */
export async function serveView(
  ctx: ServiceContext,
  request: ViewRequest,
  answer: (decision: FaultDecision) => ViewAnswer,
): Promise<void> {
  const { req, res } = request;
  const n = ++ctx.dataRequests;
  let decision: FaultDecision;
  try {
    decision = decideFaults(ctx.faults, { method: req.method ?? 'GET', url: req.url ?? '/', n });
  } catch {
    // A fault plan that throws is a bug in the caller's test: answer as a crashing view would.
    return sendServerError(ctx, res);
  }
  let release: () => void;
  try {
    release = await ctx.pool.acquire();
  } catch {
    res.destroy();
    return;
  }
  try {
    mutate(ctx, decision);
    const built = answer(decision);
    const latency = ctx.faults.pageLatencyMs + ctx.faults.recordLatencyMs * built.records;
    if (latency > 0) await sleep(latency, undefined, { signal: ctx.closing });
    respond(ctx, request, decision, built);
    await finished(res).catch(() => undefined);
  } catch {
    // Either closing the service cut a latency wait short, or a bug: answer as Django would.
    if (ctx.closing.aborted || res.headersSent) res.destroy();
    else sendServerError(ctx, res);
  } finally {
    release();
  }
}

// Records are inserted, deleted and edited as time passes, whichever view a request reaches.
function mutate(ctx: ServiceContext, decision: FaultDecision): void {
  const { dataset, stats } = ctx;
  if (decision.insert > 0) stats.mutations.inserted += dataset.insert(decision.insert, decision.random).length;
  if (decision.delete > 0) stats.mutations.deleted += dataset.delete(decision.delete, decision.random).length;
  if (decision.edit > 0) stats.mutations.edited += dataset.edit(decision.edit, decision.random).length;
}

function respond(ctx: ServiceContext, request: ViewRequest, decision: FaultDecision, built: ViewAnswer): void {
  const { req, res } = request;
  const kind = faultKind(decision.kind, req.method, built);
  if (kind !== 'none') ctx.stats.faults[kind]++;
  if (kind === 'truncate') return sendTruncated(ctx, request, built, decision.truncateAt);
  if (kind !== 'none') return sendFault(ctx, request, kind);
  const { contentType, body, headers } = answerOf(request, built);
  send(ctx, res, built.status, contentType, body, headers);
  built.onSent?.();
}

/** The fault a response shows: only a 200 is cut short, and a HEAD's (no body to cut) is reset instead. */
function faultKind(kind: FaultDecision['kind'], method: string | undefined, built: ViewAnswer): FaultDecision['kind'] {
  if (kind !== 'truncate') return kind;
  if (built.status !== 200 || built.crash) return 'none';
  return method === 'HEAD' ? 'reset' : 'truncate';
}

/** The answer cut short at `truncateAt` of its body (at least one byte, never all), then the connection dropped. */
function sendTruncated(ctx: ServiceContext, request: ViewRequest, built: ViewAnswer, truncateAt: number): void {
  const { req, res } = request;
  countStatus(ctx, built.status);
  const { contentType, body, headers } = answerOf(request, built);
  res.writeHead(built.status, { 'Content-Type': contentType, 'Content-Length': String(body.length), ...headers });
  const cut = Math.max(1, Math.floor(body.length * truncateAt));
  res.write(body.subarray(0, Math.min(cut, body.length - 1)), () => req.socket.destroy());
}

/** A fault in place of the answer: a reset connection, Django's 500, the proxy's 502 or 504, or DRF's 429. */
function sendFault(
  ctx: ServiceContext,
  request: ViewRequest,
  kind: Exclude<FaultDecision['kind'], 'none' | 'truncate'>,
): void {
  const { req, res, view } = request;
  switch (kind) {
    case 'reset':
      countStatus(ctx, 0);
      req.socket.resetAndDestroy();
      return;
    case '500':
      return sendServerError(ctx, res);
    case '502':
    case '504': {
      const status = kind === '502' ? 502 : 504;
      return send(ctx, res, status, 'text/html', proxyErrorPage(status));
    }
    case '429': {
      const seconds = Math.ceil(ctx.faults.retryAfterSeconds);
      const body = rendered(request.renderer, 429, Buffer.from(throttledDetail(seconds)), req.url ?? '/', view);
      send(ctx, res, 429, body.contentType, body.body, viewHeaders(view, { 'Retry-After': String(seconds) }));
      return;
    }
  }
}

/** The view's answer as sent: DRF's rendering with the view's headers, or Django's 500 page for a crash. */
function answerOf(request: ViewRequest, built: ViewAnswer) {
  const { renderer, req, view } = request;
  if (built.crash) {
    return { contentType: 'text/html; charset=utf-8', body: Buffer.from(DJANGO_SERVER_ERROR), headers: {} };
  }
  const { contentType, body } = rendered(renderer, built.status, built.json, req.url ?? '/', view);
  return { contentType, body, headers: viewHeaders(view) };
}
