/** What a valid API token looks like, checked apart from the HTTP client. */

/**
 * An Authorization header value: visible ASCII, so a token can never inject a header or a line into a log. Apart from
 * the HTTP client so that the command line checks `--token` without loading undici.
 */
export const TOKEN = /^[\x21-\x7e]+$/;
