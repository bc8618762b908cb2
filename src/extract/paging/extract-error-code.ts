/** The stable codes of extraction failures, and the finer kinds the retry policy tells apart. */

/** Stable codes of extraction failures; the CLI maps them to messages and exit codes. */
export type ExtractErrorCode =
  | 'HTTP_STATUS' // a status that is not 200
  | 'NETWORK' // connection refused, reset, DNS, TLS, a response that is not HTTP
  | 'TIMEOUT' // connect, headers or body took too long
  | 'BAD_BODY' // 200 but not a valid page: not JSON, truncated, wrong content type, too large, bad envelope
  | 'BAD_REDIRECT' // a redirect without a usable Location (missing, unparseable, not http or https)
  | 'FOREIGN_LINK' // a URL, link or redirect off the base host
  | 'REDIRECT_LOOP' // a redirect back to a URL already visited, or too many redirects
  | 'IMPLAUSIBLE_COUNT' // a `count` past any real list, or growing faster than the list can be read
  | 'ABORTED'; // the run was cancelled

/** What happened, finer than the code, for the codes whose failures are not all retried alike (see RETRY_POLICY). */
export interface ExtractErrorKinds {
  NETWORK:
    | 'unknown-host' // DNS knows no host of that name (ENOTFOUND)
    | 'unreachable' // the host did not answer: a refused connection, a DNS lookup that failed for now (EAI_AGAIN)
    | 'other'; // reset, TLS, a response that is not HTTP
  HTTP_STATUS:
    | 'status' // a status the caller does not expect
    | 'answer' // a status the caller reads as the service's answer (a collection's 403 private or 404 deleted)
    | 'listing-gone'; // the collections list answered before the pass over the images and not after it
  BAD_BODY:
    | 'truncated' // fewer bytes than content-length, or the connection closed early
    | 'not-utf8' // a body that is not valid UTF-8
    | 'not-json' // a body that is not valid JSON
    | 'wrong-type' // a content type that is not JSON
    | 'encoded' // a content-encoding that was not asked for
    | 'too-large' // a body over the byte cap
    | 'bad-envelope' // JSON, but not a page's envelope
    | 'not-object' // JSON, but not a record's object
    | 'wrong-record' // the record of another id
    | 'bad-link' // a `next` or `previous` that is not a URL
    | 'too-many-records' // more records than a page may hold
    | 'bad-range' // an image file's range answered with 416, or with another range than asked for
    | 'other-version' // an image file's range of another version than the .part holds (If-Range ignored)
    | 'unfit'; // an image file whose size or contents fail their check against the listing
  BAD_REDIRECT:
    | 'no-location' // a redirect without a Location
    | 'unreadable-location' // a Location that is not a URL
    | 'not-http'; // a Location that is not http or https
}

/** A kind of any code. */
export type ExtractErrorKind = ExtractErrorKinds[keyof ExtractErrorKinds];

/** What happened: the code, with its kind where the code has kinds (ExtractErrorKinds). */
export type Failure = {
  [C in ExtractErrorCode]: C extends keyof ExtractErrorKinds
    ? { code: C; kind: ExtractErrorKinds[C] }
    : { code: C; kind?: undefined };
}[ExtractErrorCode];
