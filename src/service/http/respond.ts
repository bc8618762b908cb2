/** Writing responses the way Django and DRF send them: exact bytes, Content-Length, the view's headers. */
import type { ServerResponse } from 'node:http';
import { browsablePage } from './browsable-page.js';
import type { View } from './drf-views.js';
import { DJANGO_SERVER_ERROR } from './error-pages.js';
import type { RendererName } from './negotiate-format.js';
import { countStatus, type ServiceContext } from '../service-context.js';

/** Status lines DRF shows on the browsable page. */
const REASONS: Record<number, string> = {
  200: 'OK',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  429: 'Too Many Requests',
};

/** Sends a complete response with an exact Content-Length (HEAD gets the headers only), its status counted. */
export function send(
  ctx: ServiceContext,
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  extraHeaders: Record<string, string> = {},
): void {
  countStatus(ctx, status);
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': String(bytes.length), ...extraHeaders });
  res.end(bytes);
}

/** Sends Django's HTML 500 page, as when a view raises. */
export function sendServerError(ctx: ServiceContext, res: ServerResponse): void {
  send(ctx, res, 500, 'text/html; charset=utf-8', DJANGO_SERVER_ERROR);
}

/** A DRF view's headers besides Content-Type and Content-Length. */
export function viewHeaders(view: View, extra: Record<string, string> = {}): Record<string, string> {
  return { Vary: 'Accept', Allow: view.allow, ...extra };
}

/** A DRF response body (compact JSON, UTF-8) rendered by the negotiated renderer: as is, or on the browsable page. */
export function rendered(
  renderer: RendererName,
  status: number,
  json: Buffer,
  requestPath: string,
  view: View,
): { contentType: string; body: Buffer } {
  if (renderer === 'json') return { contentType: 'application/json; charset=utf-8', body: json };
  const page = browsablePage({
    title: view.name,
    status: `${status} ${REASONS[status] ?? ''}`.trim(),
    headers: [
      ['Allow', view.allow],
      ['Content-Type', 'application/json'],
      ['Vary', 'Accept'],
    ],
    json: json.toString('utf8'),
    requestPath,
  });
  return { contentType: 'text/html; charset=utf-8', body: Buffer.from(page, 'utf8') };
}

/** Sends a DRF response (status, compact JSON) through the negotiated renderer with the view's headers. */
export function sendView(
  ctx: ServiceContext,
  res: ServerResponse,
  renderer: RendererName,
  status: number,
  json: string | Buffer,
  requestPath: string,
  view: View,
  extraHeaders: Record<string, string> = {},
): void {
  const bytes = typeof json === 'string' ? Buffer.from(json, 'utf8') : json;
  const { contentType, body } = rendered(renderer, status, bytes, requestPath, view);
  send(ctx, res, status, contentType, body, viewHeaders(view, extraHeaders));
}
