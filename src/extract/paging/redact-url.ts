/** Masks credentials in URLs before they go into a log line or an error message. */

/**
 * Query (and fragment) parameter names whose values are credentials: `token`, `api_key`, `password`, `client_secret`,
 * `auth`, `X-Amz-Signature`, `sessionid`, …
 */
const SECRET_NAME = /token|key|pass(?:word|wd)?|pwd|secret|auth|signature|credential|session/i;

// The text before the authority, the userinfo (up to the last `@` before the path), in a URL with `//`.
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#\\]*@/i;

/**
 * The URL with its credentials masked, so that it can go into a log line or an error message:
 * userinfo becomes `***` (`https://user:pass@host/` → `https://***@host/`) and so does the value of every
 * query or fragment parameter named like a secret (`?limit=10&token=abc` → `?limit=10&token=***`).
 * Everything else is kept byte for byte, so a URL without credentials comes back unchanged; works on text that does not
 * parse as a URL too.
 */
export function redactUrl(url: string): string {
  const masked = url.replace(USERINFO, '$1***@');
  const hash = masked.indexOf('#');
  const beforeHash = hash === -1 ? masked : masked.slice(0, hash);
  const fragment = hash === -1 ? undefined : masked.slice(hash + 1);
  const question = beforeHash.indexOf('?');
  const head = question === -1 ? beforeHash : beforeHash.slice(0, question);
  const query = question === -1 ? undefined : beforeHash.slice(question + 1);
  return (
    head +
    (query === undefined ? '' : `?${redactParams(query)}`) +
    (fragment === undefined ? '' : `#${redactParams(fragment)}`)
  );
}

/**
 * Masks every URL-looking run (`scheme://…`) inside free text, e.g. a server's error snippet; punctuation that closes
 * the sentence stays outside.
 */
export function redactUrlsIn(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi, (run) => {
    let end = run.length;
    while (end > 0 && closesSentence(run.slice(0, end))) end--;
    return redactUrl(run.slice(0, end)) + run.slice(end);
  });
}

function closesSentence(run: string): boolean {
  const last = run[run.length - 1]!;
  // an unbalanced `)` closes a parenthesis around the URL
  if (last === ')') return run.split(')').length > run.split('(').length;
  return '.,;:!?]'.includes(last);
}

function redactParams(params: string): string {
  return params
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      const name = pair.slice(0, eq);
      return SECRET_NAME.test(decodeName(name)) ? `${name}=***` : pair;
    })
    .join('&');
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name; // a malformed escape: test the raw text
  }
}
