/** Routes a request the way NeuroVault's URLconf, Django's middleware and DRF's view dispatch would. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAdminPath, serveAdmin } from './endpoints/admin-endpoint.js';
import {
  findCollection,
  serveCollection,
  serveCollectionImages,
  serveCollectionList,
} from './endpoints/collection-endpoints.js';
import {
  COLLECTION_IMAGES,
  COLLECTION_INSTANCE,
  COLLECTION_LIST,
  IMAGE_INSTANCE,
  IMAGE_LIST,
  optionsBody,
  type View,
} from './http/drf-views.js';
import { DJANGO_NOT_FOUND } from './http/error-pages.js';
import { FORBIDDEN, listedId, NOT_AUTHENTICATED, NOT_FOUND, serveImage } from './endpoints/image-endpoint.js';
import { serveList } from './endpoints/list-endpoint.js';
import { isMediaPath, serveMedia } from './media/media-endpoint.js';
import { negotiate } from './http/negotiate-format.js';
import { lastValue, parseQueryString, unquote } from './http/query-params.js';
import { send, sendServerError, sendView } from './http/respond.js';
import type { ViewRequest } from './http/serve-view.js';
import { countStatus, type ServiceContext } from './service-context.js';
import { authenticationFailure, TOKEN_CHALLENGE } from './http/token-authentication.js';

/** What a write method gets: a status and DRF's body (500: Django's HTML page). */
interface WriteAnswer {
  status: number;
  json: string;
  headers?: Record<string, string>;
}

/** One route of the API router: a path pattern (with its format-suffix twin) and how its view answers. */
interface Route {
  /** Matches the decoded path; group 1 is the pk where the route has one, the last group the format suffix. */
  pattern: RegExp;
  view: View;
  /** Serves GET and HEAD. */
  serve(ctx: ServiceContext, request: ViewRequest, pk: string): Promise<void>;
  /** The write methods the route maps, and how an anonymous client's write ends; other methods: 405. */
  writes?: readonly string[];
  write?(ctx: ServiceContext, pk: string): WriteAnswer;
  /** The view takes no `format` argument: a format suffix makes GET crash with a 500. */
  suffixCrashes?: boolean;
  /** One of the collection endpoints, which a service started without them does not route. */
  collection?: true;
}

// An anonymous write that gets as far as a permission check: NotAuthenticated, with TokenAuthentication's challenge.
const UNAUTHENTICATED: WriteAnswer = {
  status: 401,
  json: NOT_AUTHENTICATED,
  headers: { 'WWW-Authenticate': TOKEN_CHALLENGE },
};
const PK = '([^/.]+)';
const SUFFIX = '(?:\\/|\\.([a-z0-9]+)\\/?)$';

const ROUTES: readonly Route[] = [
  {
    pattern: new RegExp(`^/api/images${SUFFIX}`),
    view: IMAGE_LIST,
    serve: (ctx, request) => serveList(ctx, request),
  },
  {
    pattern: new RegExp(`^/api/images/${PK}${SUFFIX}`),
    view: IMAGE_INSTANCE,
    serve: serveImage,
    // update and destroy call get_object(), then the object permission check.
    writes: ['PUT', 'PATCH', 'DELETE'],
    write: (ctx, pk) => (listedId(ctx, pk) === undefined ? { status: 404, json: NOT_FOUND } : UNAUTHENTICATED),
    suffixCrashes: true,
  },
  {
    pattern: new RegExp(`^/api/collections${SUFFIX}`),
    collection: true,
    view: COLLECTION_LIST,
    serve: (ctx, request) => serveCollectionList(ctx, request),
    // Not modelled: the real create validates the body first (400) and fails to save an anonymous owner (500).
    writes: ['POST'],
    write: () => UNAUTHENTICATED,
  },
  {
    pattern: new RegExp(`^/api/collections/${PK}/images${SUFFIX}`),
    collection: true,
    view: COLLECTION_IMAGES,
    serve: serveCollectionImages,
    // add_item: get_collection, then owner_or_contrib refuses an anonymous client.
    writes: ['POST'],
    write: (ctx, pk) => {
      const found = findCollection(ctx, pk);
      if ('entry' in found) return UNAUTHENTICATED;
      return { status: found.status, json: found.status === 403 ? FORBIDDEN : NOT_FOUND };
    },
    suffixCrashes: true,
  },
  {
    pattern: new RegExp(`^/api/collections/${PK}${SUFFIX}`),
    collection: true,
    view: COLLECTION_INSTANCE,
    serve: serveCollection,
    // get_object() over the public collections (a non-numeric pk is a 404 there), then the object permission check.
    writes: ['PUT', 'PATCH', 'DELETE'],
    write: (ctx, pk) => {
      const found = findCollection(ctx, pk);
      return 'entry' in found && !found.entry.private ? UNAUTHENTICATED : { status: 404, json: NOT_FOUND };
    },
    suffixCrashes: true,
  },
];

/** Handles one request; never throws (a bug answers Django's 500 page). */
export function handleRequest(ctx: ServiceContext, req: IncomingMessage, res: ServerResponse): void {
  ctx.stats.requests++;
  try {
    route(ctx, req, res);
  } catch {
    if (!res.headersSent) return sendServerError(ctx, res);
    countStatus(ctx, 500);
    res.destroy();
  }
}

function matchRoute(ctx: ServiceContext, path: string) {
  for (const route of ROUTES) {
    if (route.collection && !ctx.collectionEndpoints) continue;
    const match = route.pattern.exec(path);
    if (match) return { route, pk: match.length > 2 ? (match[1] as string) : '', format: match.at(-1) };
  }
  return undefined;
}

function route(ctx: ServiceContext, req: IncomingMessage, res: ServerResponse): void {
  const target = req.url ?? '/';
  const mark = target.indexOf('?');
  const rawQuery = mark === -1 ? '' : target.slice(mark + 1);
  const rawPath = mark === -1 ? target : target.slice(0, mark);
  const path = unquote(rawPath);
  if (isMediaPath(path)) {
    void serveMedia(ctx, req, res, path); // nginx serves the media folder, not Django
    return;
  }
  if (ctx.admin && isAdminPath(path)) return serveAdmin(ctx, req, res, rawQuery);
  const matched = matchRoute(ctx, path);
  if (!matched) return noRoute(ctx, res, path, `${rawPath}/${rawQuery === '' ? '' : `?${rawQuery}`}`);
  const pairs = parseQueryString(rawQuery);
  const negotiated = negotiate(matched.format ?? lastValue(pairs, 'format'), req.headers.accept);
  if ('status' in negotiated) {
    // DRF renders a failed negotiation with the first renderer, JSON.
    const detail = negotiated.status === 404 ? 'Not found.' : 'Could not satisfy the request Accept header.';
    return sendView(ctx, res, 'json', negotiated.status, JSON.stringify({ detail }), target, matched.route.view);
  }
  // DRF authenticates after negotiating and before any handler: reads, OPTIONS and writes alike.
  const refused = authenticationFailure(req.headers.authorization, ctx.apiTokens);
  if (refused !== undefined) {
    const headers = { 'WWW-Authenticate': TOKEN_CHALLENGE };
    const body = JSON.stringify({ detail: refused });
    return sendView(ctx, res, negotiated.renderer, 401, body, target, matched.route.view, headers);
  }
  dispatch(ctx, req, res, { ...matched, pairs, renderer: negotiated.renderer, path, target });
}

/** A path no route matches: CommonMiddleware's APPEND_SLASH redirect to `slashed` when that would match, else 404. */
function noRoute(ctx: ServiceContext, res: ServerResponse, path: string, slashed: string): void {
  if (!path.endsWith('/') && matchRoute(ctx, `${path}/`))
    return send(ctx, res, 301, 'text/html; charset=utf-8', '', { Location: slashed });
  send(ctx, res, 404, 'text/html; charset=utf-8', DJANGO_NOT_FOUND);
}

/** A request routed and negotiated: its route, pk and format suffix, query, renderer, decoded path and raw target. */
type Routed = NonNullable<ReturnType<typeof matchRoute>> &
  Pick<ViewRequest, 'pairs' | 'renderer' | 'path'> & {
    target: string;
  };

/** DRF's dispatch by method: GET and HEAD to the view, OPTIONS to its metadata, its write methods, else 405. */
function dispatch(ctx: ServiceContext, req: IncomingMessage, res: ServerResponse, routed: Routed): void {
  const { route: found, pk, format, renderer, target } = routed;
  const { view } = found;
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') {
    if (format !== undefined && found.suffixCrashes) return sendServerError(ctx, res);
    const origin = `http://${req.headers.host ?? ctx.fallbackHost}`;
    void found.serve(ctx, { req, res, pairs: routed.pairs, renderer, path: routed.path, origin, view }, pk);
    return;
  }
  if (method === 'OPTIONS') return sendView(ctx, res, renderer, 200, optionsBody(view), target, view);
  if (found.write && found.writes?.includes(method)) {
    const answer = found.write(ctx, pk);
    if (answer.status === 500) return sendServerError(ctx, res);
    return sendView(ctx, res, renderer, answer.status, answer.json, target, view, answer.headers);
  }
  sendView(ctx, res, renderer, 405, JSON.stringify({ detail: `Method "${method}" not allowed.` }), target, view);
}
