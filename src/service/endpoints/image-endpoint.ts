/**
 * /api/images/<pk>/: one image, as NeuroVault's ImageViewSet answers it. The body is the record's bytes
 * exactly as the list serves them (the same serializer); an id that is not listed now answers 404.
 */
import { isOrphan } from '../faults/faults.js';
import { pythonInt } from '../http/query-params.js';
import { serveView, type ViewRequest } from '../http/serve-view.js';
import type { ServiceContext } from '../service-context.js';

/** DRF's 404 body. */
export const NOT_FOUND = '{"detail":"Not found."}';
/** DRF's 403 body. */
export const FORBIDDEN = '{"detail":"You do not have permission to perform this action."}';
/** DRF's 401 body for an anonymous write; it comes with `WWW-Authenticate: Token`. */
export const NOT_AUTHENTICATED = '{"detail":"Authentication credentials were not provided."}';

// `_get_api_image`: a private image is asked for as `<collection token>-<id>`.
const TOKEN_FORM = /^([A-Z]{8})-(\d+)$/;

/** Serves GET or HEAD on one image, with the faults, latency and workers of the list. */
export function serveImage(ctx: ServiceContext, request: ViewRequest, pk: string): Promise<void> {
  ctx.stats.detailRequests++;
  return serveView(ctx, request, () => {
    const found = findImage(ctx, pk);
    if ('id' in found) {
      ctx.stats.imageRecordsServed++;
      return { status: 200, json: Buffer.from(ctx.dataset.recordJson(found.id, request.origin), 'utf8'), records: 1 };
    }
    return { status: found.status, json: Buffer.from(found.status === 403 ? FORBIDDEN : NOT_FOUND), records: 0 };
  });
}

/**
 * What `retrieve` finds for a pk: the id to serve, or the status. A plain pk goes through `get_object()` over
 * the images of public collections: anything not listed now (never made, deleted, private, an orphan, `abc`) is 404.
 * The token form goes to `get_image`: any listed image, and a private one only with its collection's token (else 403).
 */
export function findImage(ctx: ServiceContext, pk: string): { id: number } | { status: 403 | 404 } {
  const { dataset, faults } = ctx;
  const tokenForm = TOKEN_FORM.exec(pk);
  const id = listedId(ctx, tokenForm ? (tokenForm[2] as string) : pk);
  if (id !== undefined) return { id };
  if (!tokenForm) return { status: 404 };
  const asked = Number(tokenForm[2]);
  if (!dataset.isPrivate(asked) || isOrphan(faults, asked)) return { status: 404 };
  return dataset.privateTokenOf(asked) === tokenForm[1] ? { id: asked } : { status: 403 };
}

/** The id a plain pk names when it is listed now and served (not an orphan), as `int(pk)` reads it. */
export function listedId(ctx: ServiceContext, pk: string): number | undefined {
  const value = pythonInt(pk);
  if (value === undefined || value <= 0n || value > 0xffff_ffffn) return undefined;
  const id = Number(value);
  return ctx.dataset.has(id) && !isOrphan(ctx.faults, id) ? id : undefined;
}
