const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443' };

/** True when two URLs name the same host: the hostname matches and so does the port, a scheme's default port counting as the same (the real service writes `http://` links for an `https://` site). */
export function isSameHost(a: URL, b: URL): boolean {
  if (a.hostname.toLowerCase() !== b.hostname.toLowerCase()) return false;
  const portA = a.port || DEFAULT_PORT[a.protocol];
  const portB = b.port || DEFAULT_PORT[b.protocol];
  return portA === portB || (a.port === '' && b.port === '');
}
