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

/** Milliseconds to wait for a response to start, and for each chunk of its body. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The largest page body accepted; a larger one is a failed attempt, never parsed. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Passes over the image list at most while records are missing, for a service without the collection endpoints. */
export const DEFAULT_MAX_PASSES = 3;

/**
 * How long an unfinished run's staging is resumed by default: 12 hours (a nightly job does not resume last night's
 * run).
 */
export const DEFAULT_MAX_RESUME_AGE_MS = 12 * 3600 * 1000;

/** Days a run trusts `modify_date` alone before it makes a full pass again; `--full-every`'s default. */
export const DEFAULT_FULL_EVERY_DAYS = 7;

/** The folder a run writes to when none is given. */
export const DEFAULT_OUT_DIR = 'output';

/** Files `img-etl files` fetches at once when a run does not say. */
export const DEFAULT_FILES_CONCURRENCY = 2;
