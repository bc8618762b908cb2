import { misnamedListUrl } from '../extract/page-url.js';
import { redactUrl } from '../extract/redact-url.js';
import { UsageError } from './usage-error.js';

/**
 * `--base-url` checked: an http or https URL without credentials, and when its path names the API, the image list
 * (`…/api/images/`); else a one-line usage error, before any request.
 */
export function baseUrlOption(text: string): URL {
  let baseUrl: URL;
  try {
    baseUrl = new URL(text);
  } catch {
    throw new UsageError({ message: `--base-url: not a URL: ${JSON.stringify(text)}` });
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:')
    throw new UsageError({
      message: `--base-url: expected an http or https URL, got ${JSON.stringify(redactUrl(text))}`,
    });
  if (baseUrl.username !== '' || baseUrl.password !== '')
    throw new UsageError({
      message: '--base-url: credentials in the URL are not supported; pass a token with --token or IMG_ETL_TOKEN',
    });
  const list = misnamedListUrl(baseUrl.href);
  if (list !== undefined) {
    const service = new URL('../../', list).href;
    const given = redactUrl(baseUrl.href);
    throw new UsageError({
      message: `--base-url: the image list is at ${list}, not ${given} (or give the service alone: ${service})`,
    });
  }
  return baseUrl;
}
