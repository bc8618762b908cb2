/** GET/HEAD /api/images/: one page of the list, with the configured faults, latency and worker limit. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { finished } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { DJANGO_SERVER_ERROR, proxyErrorPage, throttledDetail } from './error-pages.js';
import { decideFaults, type FaultDecision, isOrphan } from './faults.js';
import type { RendererName } from './negotiate-format.js';
import { pageLinks, pageWindow, requestedPage } from './pagination.js';
import { jsonNullableString } from './python-json.js';
import { rendered, send, viewHeaders } from './respond.js';
import { countStatus, type ServiceContext } from './service-context.js';

/** What the router worked out about a list request. */
export interface ListRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** Decoded query parameters in order. */
  pairs: [string, string][];
  renderer: RendererName;
  /** Decoded request path, the base of the page links. */
  path: string;
  /** `http://` plus the Host header. */
  origin: string;
}

/** Serves one list request to completion (or to its injected failure). */
export async function serveList(ctx: ServiceContext, request: ListRequest): Promise<void> {
  const { req, res } = request;
  const n = ++ctx.listRequests;
  ctx.stats.listRequests++;
  let decision: FaultDecision;
  try {
    decision = decideFaults(ctx.faults, { method: req.method ?? 'GET', url: req.url ?? '/', n });
  } catch {
    // A fault plan that throws is a bug in the caller's test: answer as a crashing view would.
    countStatus(ctx, 500);
    send(res, 500, 'text/html; charset=utf-8', DJANGO_SERVER_ERROR);
    return;
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
    const page = buildPage(ctx, request, decision);
    const latency = ctx.faults.pageLatencyMs + ctx.faults.recordLatencyMs * page.records;
    if (latency > 0) await sleep(latency, undefined, { signal: ctx.closing });
    respond(ctx, request, decision, page);
    await finished(res).catch(() => undefined);
  } catch {
    // Either closing the service cut a latency wait short, or a bug: answer as Django would.
    if (ctx.closing.aborted || res.headersSent) res.destroy();
    else send(res, 500, 'text/html; charset=utf-8', DJANGO_SERVER_ERROR);
  } finally {
    release();
  }
}

interface Page {
  /** The compact JSON body, UTF-8. */
  json: Buffer;
  records: number;
}

function mutate(ctx: ServiceContext, decision: FaultDecision): void {
  const { dataset, faults, stats } = ctx;
  if (decision.insert > 0) stats.mutations.inserted += dataset.insert(decision.insert, decision.random).length;
  if (decision.delete > 0) stats.mutations.deleted += dataset.delete(decision.delete, decision.random).length;
  if (decision.unstable && faults.unstableOrderMode === 'move') {
    stats.mutations.moved += dataset.moveToEnd(faults.moveCount, decision.random).length;
  }
}

function buildPage(ctx: ServiceContext, request: ListRequest, decision: FaultDecision): Page {
  const { dataset, faults } = ctx;
  const count = dataset.size;
  const { limit, offset } = requestedPage(request.pairs);
  const window = pageWindow(count, limit, offset);
  const links = pageLinks(`${request.origin}${request.path}`, request.pairs, window);
  const rotated = decision.unstable && faults.unstableOrderMode === 'rotate' && count > 1;
  const rotation = rotated ? Math.floor(decision.rotation * count) : 0;
  if (rotated) ctx.stats.rotatedScans++;
  // Records are encoded straight into one buffer: no page-sized string is ever built.
  const body = new BodyWriter(64 + (window.end - window.start) * 2048);
  body.write(`{"count":${count},"next":${jsonNullableString(links.next)},"previous":${jsonNullableString(links.previous)},"results":[`);
  let records = 0;
  for (let i = window.start; i < window.end; i++) {
    const id = dataset.idAt(rotation === 0 ? i : (i + rotation) % count);
    if (isOrphan(faults, id)) {
      ctx.stats.orphansDropped++;
      continue;
    }
    if (records > 0) body.write(',');
    body.write(dataset.recordJson(id, request.origin));
    records++;
  }
  body.write(']}');
  return { json: body.bytes(), records };
}

/** A growable UTF-8 byte buffer. */
class BodyWriter {
  private buffer: Buffer;
  private length = 0;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }

  write(text: string): void {
    // A UTF-16 unit never takes more than 3 UTF-8 bytes.
    const needed = this.length + text.length * 3;
    if (needed > this.buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
      this.buffer.copy(bigger, 0, 0, this.length);
      this.buffer = bigger;
    }
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

function respond(ctx: ServiceContext, request: ListRequest, decision: FaultDecision, page: Page): void {
  const { req, res } = request;
  const kind = decision.kind === 'truncate' && req.method === 'HEAD' ? 'reset' : decision.kind;
  if (kind !== 'none') ctx.stats.faults[kind]++;
  switch (kind) {
    case 'reset':
      countStatus(ctx, 0);
      req.socket.resetAndDestroy();
      return;
    case '500':
      countStatus(ctx, 500);
      send(res, 500, 'text/html; charset=utf-8', DJANGO_SERVER_ERROR);
      return;
    case '502':
    case '504': {
      const status = kind === '502' ? 502 : 504;
      countStatus(ctx, status);
      send(res, status, 'text/html', proxyErrorPage(status));
      return;
    }
    case '429': {
      const seconds = Math.ceil(ctx.faults.retryAfterSeconds);
      countStatus(ctx, 429);
      const body = rendered(request.renderer, 429, Buffer.from(throttledDetail(seconds)), req.url ?? '/');
      send(res, 429, body.contentType, body.body, viewHeaders({ 'Retry-After': String(seconds) }));
      return;
    }
    case 'truncate': {
      countStatus(ctx, 200);
      const body = rendered(request.renderer, 200, page.json, req.url ?? '/');
      const bytes = body.body;
      res.writeHead(200, { 'Content-Type': body.contentType, 'Content-Length': String(bytes.length), ...viewHeaders() });
      const cut = Math.max(1, Math.floor(bytes.length * decision.truncateAt));
      res.write(bytes.subarray(0, Math.min(cut, bytes.length - 1)), () => req.socket.destroy());
      return;
    }
    case 'none': {
      countStatus(ctx, 200);
      const body = rendered(request.renderer, 200, page.json, req.url ?? '/');
      send(res, 200, body.contentType, body.body, viewHeaders());
      ctx.stats.pagesServed++;
      ctx.stats.recordsServed += page.records;
      return;
    }
  }
}
