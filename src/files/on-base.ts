/** A listed link put on the service's scheme, or refused when it is on another host. */
import { isSameHost } from '../extract/paging/same-host.js';

/**
 * The link on the service's scheme when it is on its host (the listing writes `http://` links for an https site); else
 * undefined.
 */
export function onBase(url: string, base: URL): string | undefined {
  let link: URL;
  try {
    link = new URL(url);
  } catch {
    return undefined;
  }
  if (!isSameHost(link, base)) return undefined;
  if (link.protocol !== base.protocol) {
    link.protocol = base.protocol;
    if (link.port === '' && base.port !== '') link.port = base.port;
  }
  return link.href;
}
