/** The defaults every part of a run shares: which service, and how many records a page asks for. */

/** The service snapshotted when no base URL is given. */
export const DEFAULT_BASE_URL = 'https://neurovault.org';

/**
 * Records asked for per page: the service's cap. Every request to the real service runs a COUNT over a join before
 * it serves its page, so the same records in fewer, larger pages cost it less, and a page this size is still served
 * well inside the request timeout (docs/performance.md, "The page size").
 */
export const DEFAULT_PAGE_SIZE = 1000;

/** Pages (or a collection's lists) fetched at once when a run does not say: polite to the real service's 4 workers. */
export const DEFAULT_CONCURRENCY = 2;
