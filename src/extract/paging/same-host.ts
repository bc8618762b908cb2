/** The rule that links and redirects stay on the host a run was given. */

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * True when two http(s) URLs name the same host: the hostname matches and so does the port, a scheme's default port
 * counting as the same (the real service writes `http://` links for an `https://` site). Any other scheme is never the
 * same host.
 * This is the whole rule for links and redirects: a private or loopback address is refused because it is another host,
 * not because it is private.
 */
export function isSameHost(a: URL, b: URL): boolean {
  if (DEFAULT_PORT[a.protocol] === undefined || DEFAULT_PORT[b.protocol] === undefined) return false;
  if (a.hostname.toLowerCase() !== b.hostname.toLowerCase()) return false;
  const portA = a.port || DEFAULT_PORT[a.protocol];
  const portB = b.port || DEFAULT_PORT[b.protocol];
  return portA === portB || (a.port === '' && b.port === '');
}

/**
 * True when a request to `url` may carry the credentials meant for `base`: same host, and never in clear text when the
 * base is https.
 */
export function mayCarryCredentials(url: URL, base: URL): boolean {
  return isSameHost(url, base) && !(base.protocol === 'https:' && url.protocol !== 'https:');
}
