/** Methods, headers, renderers and error bodies of the list endpoint, over real HTTP. */
import { request as httpRequest, Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../../src/service/index.js';
import { fetchReply } from '../http.js';

let service: RunningService;

beforeAll(async () => {
  service = await startService({ records: 400, seed: 11 });
});
afterAll(() => service.close());

const OPTIONS_BODY =
  '{"name":"Image List","description":"","renders":["application/json","text/html"],' +
  '"parses":["application/json","application/x-www-form-urlencoded","multipart/form-data"]}';

describe('list response headers', () => {
  it('carry Allow, Content-Type with charset, Vary and an exact Content-Length', async () => {
    const reply = await fetchReply(service.listUrl);
    expect(reply.status).toBe(200);
    expect(reply.headers['allow']).toBe('GET, HEAD, OPTIONS');
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['vary']).toBe('Accept');
    expect(Number(reply.headers['content-length'])).toBe(reply.body.length);
  });

  it('keep the connection alive for the next request', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (): Promise<{ reused: boolean; connection: string | undefined }> =>
      new Promise((resolve, reject) => {
        const req = httpRequest(service.listUrl, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ reused: req.reusedSocket, connection: res.headers.connection }));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      const first = await get();
      const second = await get();
      expect(first.connection).toBe('keep-alive');
      expect(second.reused).toBe(true);
    } finally {
      agent.destroy();
    }
  });
});

describe('methods', () => {
  it('HEAD answers like GET without a body', async () => {
    const get = await fetchReply(`${service.listUrl}?limit=7&offset=3`);
    const head = await fetchReply(`${service.listUrl}?limit=7&offset=3`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of ['allow', 'content-type', 'vary', 'content-length'])
      expect(head.headers[name]).toBe(get.headers[name]);
  });

  it('OPTIONS answers 200 with the view metadata', async () => {
    const reply = await fetchReply(service.listUrl, { method: 'OPTIONS' });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe(OPTIONS_BODY);
    expect(reply.headers['allow']).toBe('GET, HEAD, OPTIONS');
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])(
    '%s answers 405 with the method named and the Allow header',
    async (method) => {
      const reply = await fetchReply(service.listUrl, { method, headers: { 'content-type': 'application/json' } });
      expect(reply.status).toBe(405);
      expect(reply.text).toBe(`{"detail":"Method \\"${method}\\" not allowed."}`);
      expect(reply.headers['allow']).toBe('GET, HEAD, OPTIONS');
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    },
  );
});

describe('renderers', () => {
  function preContent(html: string): string {
    const match = /\n\n<\/span>([\s\S]*?)<\/pre>/.exec(html);
    if (!match) throw new Error('no response block in the browsable page');
    return (match[1] as string)
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#x27;/g, "'")
      .replace(/&amp;/g, '&');
  }

  it('format=api answers the browsable HTML page showing the same data, escaped', async () => {
    const json = await fetchReply(`${service.listUrl}?limit=20&offset=40`);
    const html = await fetchReply(`${service.listUrl}?limit=20&offset=40&format=api`);
    expect(html.status).toBe(200);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.headers['vary']).toBe('Accept');
    const shown = JSON.parse(preContent(html.text)) as { next: string; previous: string };
    const plain = JSON.parse(json.text) as { next: string; previous: string };
    expect({ ...shown, next: null, previous: null }).toEqual({ ...plain, next: null, previous: null });
    expect(shown.next).toBe(`${service.listUrl}?format=api&limit=20&offset=60`);
    expect(shown.previous).toBe(`${service.listUrl}?format=api&limit=20&offset=20`);
  });

  it('Accept: text/html without a format answers the browsable page', async () => {
    const reply = await fetchReply(`${service.listUrl}?limit=2`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.text).toContain('<title>Image List – Django REST framework</title>');
  });

  it('format=json answers JSON', async () => {
    const reply = await fetchReply(`${service.listUrl}?format=json&limit=2`);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect((JSON.parse(reply.text) as { results: unknown[] }).results).toHaveLength(2);
  });

  it('an unknown format answers 404 {"detail":"Not found."}', async () => {
    for (const url of [`${service.listUrl}?format=xml`, `${service.url}/api/images.xml`]) {
      const reply = await fetchReply(url);
      expect(reply.status).toBe(404);
      expect(reply.text).toBe('{"detail":"Not found."}');
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  it('an Accept header no renderer satisfies answers 406', async () => {
    const reply = await fetchReply(service.listUrl, { headers: { accept: 'image/png' } });
    expect(reply.status).toBe(406);
    expect(reply.text).toBe('{"detail":"Could not satisfy the request Accept header."}');
  });
});

describe('other paths', () => {
  it('answer Django 404 pages', async () => {
    for (const path of ['/', '/api/', '/api/atlases/', '/api/imagesx/']) {
      const reply = await fetchReply(`${service.url}${path}`);
      expect(reply.status).toBe(404);
      expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(reply.text).toContain('<h1>Not Found</h1>');
    }
  });

  it('/api/images without the slash redirects (APPEND_SLASH), keeping the query', async () => {
    const reply = await fetchReply(`${service.url}/api/images?limit=5`);
    expect(reply.status).toBe(301);
    expect(reply.headers['location']).toBe('/api/images/?limit=5');
  });

  it('/api/images.json lists too', async () => {
    const reply = await fetchReply(`${service.url}/api/images.json?limit=3`);
    expect(reply.status).toBe(200);
    expect((JSON.parse(reply.text) as { results: unknown[] }).results).toHaveLength(3);
  });
});

describe('body encoding', () => {
  it('is compact JSON: no whitespace outside strings', async () => {
    const reply = await fetchReply(`${service.listUrl}?limit=400`);
    const outsideStrings = reply.text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
    expect(outsideStrings).not.toMatch(/\s/);
  });

  it('is UTF-8 with non-ASCII characters unescaped', async () => {
    const reply = await fetchReply(`${service.listUrl}?limit=400`);
    const nonAscii = [...reply.text].filter((ch) => ch.codePointAt(0)! > 0x7f);
    expect(nonAscii.length).toBeGreaterThan(0);
    // Multi-byte UTF-8 sequences on the wire, and no \\u escapes other than for control characters.
    expect(reply.body.some((byte) => byte >= 0xc2 && byte <= 0xf4)).toBe(true);
    expect(reply.text).not.toMatch(/\\u(?!00[01][0-9a-f])[0-9a-f]{4}/i);
    expect(reply.body.length).toBe(Buffer.byteLength(reply.text, 'utf8'));
  });
});
