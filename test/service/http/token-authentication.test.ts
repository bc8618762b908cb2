/**
 * NeuroVault's API authenticates with DRF's TokenAuthentication only (facts: settings.py L197-218): a request that
 * sends `Authorization: Token <key>` with a key the service never issued is refused with 401 on every API view, reads
 * included, before the view runs; a token it issued reads as an anonymous client does. Other schemes are not read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../../src/service/index.js';
import { fetchReply } from '../http.js';

const ISSUED = '0123456789abcdef0123456789abcdef01234567';
let service: RunningService;

beforeAll(async () => {
  service = await startService({ records: 300, seed: 5, apiTokens: [ISSUED] });
});
afterAll(() => service.close());

const withToken = (value: string) => ({ headers: { authorization: value } });

describe('an unknown token', () => {
  it('gets 401 "Invalid token." with the Token challenge on the image and collection endpoints', async () => {
    const id = service.dataset.idAt(0);
    const cid = service.dataset.recordAt(0)['collection_id'] as number;
    for (const path of [
      '/api/images/?limit=3',
      `/api/images/${id}/`,
      '/api/collections/',
      `/api/collections/${cid}/`,
      `/api/collections/${cid}/images/`,
    ]) {
      const reply = await fetchReply(`${service.url}${path}`, withToken('Token not-a-token-it-issued'));
      expect([path, reply.status, reply.text]).toEqual([path, 401, '{"detail":"Invalid token."}']);
      expect(reply.headers['www-authenticate']).toBe('Token');
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(reply.headers['vary']).toBe('Accept');
    }
  });

  it('gets 401 on HEAD and OPTIONS too (authentication runs before any handler)', async () => {
    const head = await fetchReply(service.listUrl, { method: 'HEAD', ...withToken('Token nope') });
    const options = await fetchReply(service.listUrl, { method: 'OPTIONS', ...withToken('Token nope') });
    expect([head.status, head.headers['www-authenticate']]).toEqual([401, 'Token']);
    expect([options.status, options.text]).toEqual([401, '{"detail":"Invalid token."}']);
  });

  it('reads the keyword case-insensitively and says what is wrong with a malformed header', async () => {
    const cases: [string, string][] = [
      ['token nope', 'Invalid token.'],
      ['Token', 'Invalid token header. No credentials provided.'],
      [`Token ${ISSUED} extra`, 'Invalid token header. Token string should not contain spaces.'],
    ];
    for (const [header, detail] of cases) {
      const reply = await fetchReply(service.listUrl, withToken(header));
      expect([header, reply.status, reply.text]).toEqual([header, 401, JSON.stringify({ detail })]);
    }
  });
});

describe('what authentication leaves alone', () => {
  it('an issued token, another scheme and no header read the same page', async () => {
    const anonymous = await fetchReply(`${service.listUrl}?limit=4`);
    expect(anonymous.status).toBe(200);
    for (const header of [`Token ${ISSUED}`, `TOKEN ${ISSUED}`, 'Bearer whatever', 'Basic dXNlcjpwYXNz']) {
      const reply = await fetchReply(`${service.listUrl}?limit=4`, withToken(header));
      expect([header, reply.status, reply.text]).toEqual([header, 200, anonymous.text]);
    }
  });

  it('an unknown format is refused (404) before the token is read, as DRF negotiates first', async () => {
    const reply = await fetchReply(`${service.listUrl}?format=xml`, withToken('Token nope'));
    expect([reply.status, reply.text]).toEqual([404, '{"detail":"Not found."}']);
  });

  it('media files, the trailing-slash redirect and unknown paths are not DRF views: no 401', async () => {
    const record = service.dataset.recordAt(0);
    const file = await fetchReply(record['file'] as string, { method: 'HEAD', ...withToken('Token nope') });
    expect(file.status).not.toBe(401);
    const redirect = await fetchReply(`${service.url}/api/images`, withToken('Token nope'));
    expect(redirect.status).toBe(301);
    const unknown = await fetchReply(`${service.url}/api/nothing/`, withToken('Token nope'));
    expect(unknown.status).toBe(404);
  });
});
