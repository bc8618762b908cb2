/**
 * How the floor and the DuckDB peer read the list: the first page alone for `count`, then the rest
 * `concurrency` at a time over undici keep-alive connections (the connection settings and headers of
 * img-etl's HttpClient), advancing by the page size the server applied, each body `JSON.parse`d.
 */
import { Agent, request } from 'undici';

/** One parsed page of the list. */
export interface ListPage {
  count: number;
  next: string | null;
  results: unknown[];
}

/** Where and how to page. */
export interface FetchAllOptions {
  /** The service, e.g. `http://127.0.0.1:40123`; the list is `{baseUrl}/api/images/`. */
  baseUrl: string;
  /** Pages in flight at once. */
  concurrency: number;
  /** Records asked for per page. */
  pageSize: number;
  /** Sent as `user-agent`. */
  userAgent: string;
}

/** What was read. */
export interface FetchedList {
  count: number;
  records: number;
  pages: number;
}

/** Reads every page and hands each to `onPage` (awaited before that lane asks for its next page). */
export async function fetchAllPages(
  options: FetchAllOptions,
  onPage: (page: ListPage) => void | Promise<void>,
): Promise<FetchedList> {
  const { baseUrl, concurrency, pageSize } = options;
  const listUrl = new URL('api/images/', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 10_000 });
  const headers = { accept: 'application/json', 'accept-encoding': 'identity', 'user-agent': options.userAgent };
  const getPage = async (limit: number, offset: number): Promise<ListPage> => {
    const url = new URL(listUrl);
    url.searchParams.set('limit', String(limit));
    url.searchParams.set('offset', String(offset));
    const response = await request(url, { dispatcher: agent, method: 'GET', headers });
    const text = await response.body.text();
    if (response.statusCode !== 200) {
      throw new Error(`${options.userAgent}: GET ${url.href} returned ${response.statusCode}`);
    }
    return JSON.parse(text) as ListPage;
  };
  try {
    const first = await getPage(pageSize, 0);
    await onPage(first);
    const applied = first.next === null ? pageSize : Number(new URL(first.next).searchParams.get('limit') ?? pageSize);
    let records = first.results.length;
    let pages = 1;
    let nextOffset = applied;
    const lane = async (): Promise<void> => {
      while (nextOffset < first.count) {
        const offset = nextOffset;
        nextOffset += applied;
        const page = await getPage(applied, offset);
        await onPage(page);
        records += page.results.length;
        pages++;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
    return { count: first.count, records, pages };
  } finally {
    await agent.close();
  }
}
