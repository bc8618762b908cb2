/** Routes a request the way NeuroVault's URLconf, Django's middleware and DRF's view dispatch would. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DJANGO_NOT_FOUND, DJANGO_SERVER_ERROR } from './error-pages.js';
import { serveList } from './list-endpoint.js';
import { negotiate } from './negotiate-format.js';
import { lastValue, parseQueryString, unquote } from './query-params.js';
import { send, sendView } from './respond.js';
import { countStatus, type ServiceContext } from './service-context.js';

/** DRF's SimpleMetadata answer to OPTIONS on the list. */
export const OPTIONS_BODY =
  '{"name":"Image List","description":"","renders":["application/json","text/html"],"parses":["application/json","application/x-www-form-urlencoded","multipart/form-data"]}';

// The router's list route and its format-suffix twin (`images.json`, `images.api`, `images.json/`).
const LIST_ROUTE = /^\/api\/images(?:\/|\.([a-z0-9]+)\/?)$/;

/** Handles one request; never throws (a bug answers Django's 500 page). */
export function handleRequest(ctx: ServiceContext, req: IncomingMessage, res: ServerResponse): void {
  ctx.stats.requests++;
  try {
    route(ctx, req, res);
  } catch {
    countStatus(ctx, 500);
    if (!res.headersSent) send(res, 500, 'text/html; charset=utf-8', DJANGO_SERVER_ERROR);
    else res.destroy();
  }
}

function route(ctx: ServiceContext, req: IncomingMessage, res: ServerResponse): void {
  const target = req.url ?? '/';
  const mark = target.indexOf('?');
  const rawQuery = mark === -1 ? '' : target.slice(mark + 1);
  const path = unquote(mark === -1 ? target : target.slice(0, mark));
  const match = LIST_ROUTE.exec(path);
  if (!match) {
    if (path === '/api/images') {
      // CommonMiddleware's APPEND_SLASH redirect.
      countStatus(ctx, 301);
      send(res, 301, 'text/html; charset=utf-8', '', { Location: `/api/images/${rawQuery === '' ? '' : `?${rawQuery}`}` });
      return;
    }
    countStatus(ctx, 404);
    send(res, 404, 'text/html; charset=utf-8', DJANGO_NOT_FOUND);
    return;
  }
  const pairs = parseQueryString(rawQuery);
  const negotiated = negotiate(match[1] ?? lastValue(pairs, 'format'), req.headers.accept);
  if ('status' in negotiated) {
    // DRF renders a failed negotiation with the first renderer, JSON.
    const detail = negotiated.status === 404 ? 'Not found.' : 'Could not satisfy the request Accept header.';
    countStatus(ctx, negotiated.status);
    sendView(res, 'json', negotiated.status, JSON.stringify({ detail }), target);
    return;
  }
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') {
    const origin = `http://${req.headers.host ?? ctx.fallbackHost}`;
    void serveList(ctx, { req, res, pairs, renderer: negotiated.renderer, path, origin });
    return;
  }
  if (method === 'OPTIONS') {
    countStatus(ctx, 200);
    sendView(res, negotiated.renderer, 200, OPTIONS_BODY, target);
    return;
  }
  countStatus(ctx, 405);
  sendView(res, negotiated.renderer, 405, JSON.stringify({ detail: `Method "${method}" not allowed.` }), target);
}
