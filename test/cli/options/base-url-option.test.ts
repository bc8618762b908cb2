/**
 * What the last line of a failed run tells to check about --base-url. The CLI's own runs show the cases a test can
 * reach (usage-messages.test); the default service unreachable without a network is one it cannot, so its line is
 * checked here, from the error a run gets then.
 */
import { describe, expect, it } from 'vitest';
import { baseUrlHint } from '../../../src/cli/options/base-url-option.js';
import { ExtractError } from '../../../src/extract/paging/extract-error.js';

const LIST = 'https://neurovault.org/api/images/?limit=1000&offset=0';

describe('the hint after a run that could not reach the service', () => {
  it.each([
    ['unknown-host', 'failed (getaddrinfo ENOTFOUND neurovault.org: the host neurovault.org could not be found)'],
    ['unreachable', 'failed (getaddrinfo EAI_AGAIN neurovault.org: DNS did not answer for neurovault.org)'],
  ] as const)('of the default --base-url (%s) points to img-etl serve, a local copy to try', (kind, reason) => {
    const err = new ExtractError({ code: 'NETWORK', kind, url: LIST, reason });
    expect(baseUrlHint(err, 'https://neurovault.org/')).toBe(
      '; to try img-etl without a network, `img-etl serve` runs a local copy of the service ' +
        '(then --base-url http://127.0.0.1:8000)',
    );
  });

  it('of a --base-url given says to check it; a reset connection or a 404 of another URL says nothing', () => {
    const url = 'http://mirror.example/api/images/?limit=1000&offset=0';
    const unknown = new ExtractError({ code: 'NETWORK', kind: 'unknown-host', url, reason: 'failed' });
    expect(baseUrlHint(unknown, 'http://mirror.example/')).toBe('; check --base-url');
    const reset = new ExtractError({ code: 'NETWORK', kind: 'other', url, reason: 'failed (ECONNRESET)' });
    expect(baseUrlHint(reset, 'http://mirror.example/')).toBe('');
    const image = 'http://mirror.example/api/images/12/';
    const gone = new ExtractError({
      code: 'HTTP_STATUS',
      kind: 'status',
      url: image,
      reason: 'returned 404',
      status: 404,
    });
    expect(baseUrlHint(gone, 'http://mirror.example/')).toBe('');
  });
});
