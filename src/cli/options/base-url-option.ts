/** `--base-url` checked before any request, and the hints printed when a run failed at that address. */
import { DEFAULT_BASE_URL } from '../../extract/defaults.js';
import { ExtractError } from '../../extract/paging/extract-error.js';
import { listUrlOf, misnamedListUrl } from '../../extract/paging/page-url.js';
import { redactUrl } from '../../extract/paging/redact-url.js';
import { UsageError } from '../usage-error.js';

/**
 * `--base-url` checked: an http or https URL without credentials, and when its path names the API, the image list
 * (`…/api/images/`); else a one-line usage error, before any request.
 */
export function baseUrlOption(text: string): URL {
  // `127.0.0.1:8765` is no URL, and `localhost:8765` one of the scheme `localhost:`: both lack `http://`
  const schemed = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? undefined : withScheme(text);
  if (schemed !== undefined)
    throw new UsageError(`--base-url: ${JSON.stringify(text)} is not a URL: did you mean ${schemed}?`);
  let baseUrl: URL;
  try {
    baseUrl = new URL(text);
  } catch {
    throw new UsageError(`--base-url: not a URL: ${JSON.stringify(text)}`);
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:')
    throw new UsageError(`--base-url: expected an http or https URL, got ${JSON.stringify(redactUrl(text))}`);
  if (baseUrl.username !== '' || baseUrl.password !== '')
    throw new UsageError(
      '--base-url: credentials in the URL are not supported; pass a token with --token or IMG_ETL_TOKEN',
    );
  const list = misnamedListUrl(baseUrl.href);
  if (list !== undefined) {
    const service = new URL('../../', list).href;
    const given = redactUrl(baseUrl.href);
    throw new UsageError(
      `--base-url: the image list is at ${list}, not ${given} (or give the service alone: ${service})`,
    );
  }
  return baseUrl;
}

/**
 * The URL `text`, written without a scheme, likely means: http for this machine or an address (as `img-etl serve`
 * prints it), https for a named host (as NeuroVault is); undefined when that is no URL either.
 */
function withScheme(text: string): string | undefined {
  const host = /^([\w.-]+|\[[\da-f:.]+\])(?::\d+)?(?:\/|$)/i.exec(text)?.[1];
  if (host === undefined) return undefined;
  const local = /^(localhost|\d{1,3}(\.\d{1,3}){3}|\[.*\])$/i.test(host);
  const url = `${local ? 'http' : 'https'}://${text}`;
  return URL.canParse(url) ? url : undefined;
}

/**
 * What to check when a run failed at the service's address, said after its error: a base URL whose image list answers
 * 404 is not the service's root; a host DNS does not know, or that does not answer, may be mistyped; and where the
 * default service cannot be reached (no network), `img-etl serve` runs a local copy to try. Empty for other failures.
 */
export function baseUrlHint(err: unknown, baseUrl: string): string {
  if (!(err instanceof ExtractError)) return '';
  const byDefault = baseUrl === new URL(DEFAULT_BASE_URL).href;
  const list = listUrlOf(baseUrl).pathname;
  if (err.code === 'HTTP_STATUS' && err.status === 404 && !byDefault && new URL(err.url).pathname === list)
    return (
      `; --base-url ${baseUrl} holds no image list: give the service's root, the URL before /api/images/ ` +
      `(${DEFAULT_BASE_URL} for NeuroVault)`
    );
  if (err.code !== 'NETWORK' || err.kind === 'other') return '';
  if (!byDefault) return '; check --base-url';
  const local = '(then --base-url http://127.0.0.1:8000)';
  return `; to try img-etl without a network, \`img-etl serve\` runs a local copy of the service ${local}`;
}
