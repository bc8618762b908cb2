import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExtractError } from '../../../src/extract/paging/extract-error.js';
import { redactUrl, redactUrlsIn } from '../../../src/extract/paging/redact-url.js';

describe('redactUrl', () => {
  it.each([
    ['https://user:pass@neurovault.org/api/images/', 'https://***@neurovault.org/api/images/'],
    ['https://user@neurovault.org/', 'https://***@neurovault.org/'],
    ['https://u:p@ss@neurovault.org/x', 'https://***@neurovault.org/x'],
    ['https://:@neurovault.org/', 'https://***@neurovault.org/'],
    ['https://neurovault.org/api/images/?limit=10&offset=0', 'https://neurovault.org/api/images/?limit=10&offset=0'],
    ['https://neurovault.org/api/images/?token=abc&limit=10', 'https://neurovault.org/api/images/?token=***&limit=10'],
    ['https://h/?limit=1&api_key=abc', 'https://h/?limit=1&api_key=***'],
    ['https://h/?apiKey=abc&access_token=def', 'https://h/?apiKey=***&access_token=***'],
    [
      'https://h/?password=a&passwd=b&pwd=c&client_secret=d',
      'https://h/?password=***&passwd=***&pwd=***&client_secret=***',
    ],
    ['https://h/?Authorization=Token%20abc&auth=x', 'https://h/?Authorization=***&auth=***'],
    [
      'https://h/?X-Amz-Signature=abc&X-Amz-Credential=def&sessionid=ghi',
      'https://h/?X-Amz-Signature=***&X-Amz-Credential=***&sessionid=***',
    ],
    ['https://h/?to%6Ben=abc', 'https://h/?to%6Ben=***'],
    ['https://h/?token=', 'https://h/?token=***'],
    ['https://h/?token', 'https://h/?token'],
    ['https://h/?bad%zzname=1&token=a', 'https://h/?bad%zzname=1&token=***'],
    ['https://h/cb#access_token=abc&state=x', 'https://h/cb#access_token=***&state=x'],
    ['https://h/a@b?limit=1', 'https://h/a@b?limit=1'],
    ['https://user:pw@h/?token=a#secret=b', 'https://***@h/?token=***#secret=***'],
    ['/api/images/?limit=10&token=abc', '/api/images/?limit=10&token=***'],
    ['not a url', 'not a url'],
    ['', ''],
  ])('%s → %s', (url, redacted) => {
    expect(redactUrl(url)).toBe(redacted);
  });

  const secret = fc.stringMatching(/^[A-Za-z0-9._~-]{6,24}$/).map((s) => `zq${s}`);

  it('never lets a secret in userinfo or a secret-named parameter through', () => {
    fc.assert(
      fc.property(
        secret,
        fc.constantFrom('token', 'api_key', 'password', 'client_secret', 'auth'),
        fc.boolean(),
        (value, name, inUserinfo) => {
          const url = inUserinfo
            ? `https://me:${value}@neurovault.org/api/images/?limit=5`
            : `https://neurovault.org/api/images/?limit=5&${name}=${value}&offset=0`;
          const redacted = redactUrl(url);
          expect(redacted).not.toContain(value);
          expect(redactUrl(redacted)).toBe(redacted);
        },
      ),
    );
  });

  it('leaves a URL without credentials as it was', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        const parsed = new URL(url);
        const names = [...parsed.searchParams.keys(), ...new URLSearchParams(parsed.hash.slice(1)).keys()];
        const authority = url.slice(url.indexOf('//') + 2).split(/[/?#]/)[0] ?? '';
        fc.pre(!authority.includes('@'));
        fc.pre(!names.some((n) => /token|key|pass|pwd|secret|auth|signature|credential|session/i.test(n)));
        expect(redactUrl(url)).toBe(url);
      }),
    );
  });
});

describe('redactUrlsIn', () => {
  it('masks every URL inside free text and nothing else', () => {
    expect(redactUrlsIn('see https://a:b@h/x?token=1 and http://h/?limit=2; key=3')).toBe(
      'see https://***@h/x?token=*** and http://h/?limit=2; key=3',
    );
    expect(redactUrlsIn('failed (via https://h/?a=(1)&token=abc).')).toBe('failed (via https://h/?a=(1)&token=***).');
    expect(redactUrlsIn('"http://u:p@h/?key=k", then')).toBe('"http://***@h/?key=***", then');
  });
});

describe('ExtractError messages', () => {
  it('mask credentials in the URL and in the reason', () => {
    const error = new ExtractError({
      code: 'NETWORK',
      kind: 'other',
      url: 'https://u:p@h/api/images/?limit=2&token=abc',
      reason: 'failed (redirected via https://x:y@h/?key=k)',
    });
    expect(error.message).toBe(
      'extract: GET https://***@h/api/images/?limit=2&token=*** failed (redirected via https://***@h/?key=***)',
    );
    expect(error.url).toBe('https://***@h/api/images/?limit=2&token=***');
  });

  it('are one line, whatever the reason holds', () => {
    const error = new ExtractError({
      code: 'BAD_BODY',
      kind: 'not-json',
      url: 'http://h/api/images/',
      reason:
        'returned a body that is not valid JSON (Unexpected token \'<\', "<html>\r\n<h"... ' +
        'is not valid JSON)\u2028x\u0000y',
    });
    expect(error.message).toBe(
      'extract: GET http://h/api/images/ returned a body that is not valid JSON ' +
        '(Unexpected token \'<\', "<html> <h"... is not valid JSON) x y',
    );
    expect(error.reason).not.toMatch(/[\r\n\u2028\u0000]/);
  });

  it('cut a very long reason', () => {
    const error = new ExtractError({
      code: 'BAD_BODY',
      kind: 'bad-envelope',
      url: 'http://h/',
      reason: `returned ${'x'.repeat(10_000)}`,
    });
    expect(error.reason).toHaveLength(501);
    expect(error.reason.endsWith('…')).toBe(true);
  });
});
