/** The URLs of the image list and of its pages, from the base URL a run is given. */

/** The URL of the list page at `offset` with `limit` records: `{base}/api/images/?limit=L&offset=O`. */
export function pageUrl(listUrl: URL, limit: number, offset: number): string {
  const url = new URL(listUrl);
  url.searchParams.set('limit', String(limit));
  url.searchParams.set('offset', String(offset));
  url.searchParams.sort();
  return url.href;
}

/**
 * The list endpoint of a service: `{base}/api/images/`, keeping any path prefix of the base URL. A base that already
 * ends in `/api/images` or `/api/images/` (the list URL `img-etl serve` and the browser show) is that list itself.
 */
export function listUrlOf(baseUrl: string): URL {
  const base = new URL(baseUrl);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return new URL(base.pathname.endsWith('/api/images/') ? base.pathname : 'api/images/', base);
}

/**
 * The image list a base URL was meant to name when its path names the API (`/api/`) but not the image list
 * (`http://host/api/image/`, `http://host/api/collections/`): `{prefix}/api/images/`; undefined for any other base.
 */
export function misnamedListUrl(baseUrl: string): string | undefined {
  const base = new URL(baseUrl);
  const path = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  const api = path.indexOf('/api/');
  if (api === -1 || path.endsWith('/api/images/')) return undefined;
  return new URL(`${path.slice(0, api)}/api/images/`, base.origin).href;
}

/** The `limit` a link carries (the server's effective page size), or undefined. */
export function limitOfLink(link: string | null): number | undefined {
  if (link === null) return undefined;
  const value = new URL(link).searchParams.get('limit');
  const n = value === null ? NaN : Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** The URL of one image: `{base}/api/images/<id>/`. */
export function imageUrlOf(baseUrl: string, id: number): string {
  return new URL(`${id}/`, listUrlOf(baseUrl)).href;
}

/** The collections list of a service: `{base}/api/collections/`, beside its image list. */
export function collectionsUrlOf(baseUrl: string): URL {
  return new URL('../collections/', listUrlOf(baseUrl));
}

/** The list of one collection's images, ordered by id: `{base}/api/collections/<id>/images/`. */
export function collectionImagesUrlOf(baseUrl: string, collection: number): URL {
  return new URL(`${collection}/images/`, collectionsUrlOf(baseUrl));
}
