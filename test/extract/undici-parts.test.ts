import { describe, expect, it } from 'vitest';
import * as undici from 'undici';
import { Agent, errors, loadUndiciParts, request, undiciSource, type UndiciParts } from '../../src/extract/undici-parts.js';
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

describe('undici-parts', () => {
  it('loads Agent, errors and request from their own modules, the same classes the index exports', () => {
    expect(undiciSource).toBe('modules'); // 'index' would mean undici moved its files: still correct, 90 ms slower to start
    expect(Agent).toBe(undici.Agent);
    expect(errors).toBe(undici.errors);
  });

  const requireFrom = createRequire(import.meta.url);
  /** undici laid out otherwise: its own modules are not there. */
  const fallback = loadUndiciParts((id) => {
    if (id.startsWith('undici/lib/')) throw new Error(`Cannot find module '${id}'`);
    return requireFrom(id);
  });

  it('falls back to the index when undici has moved its files', () => {
    expect(fallback.source).toBe('index');
    expect(fallback.Agent).toBe(undici.Agent);
    expect(fallback.errors).toBe(undici.errors);
  });

  it.each<[string, UndiciParts]>([
    ['modules', { Agent, errors, request, source: undiciSource }],
    ['index', fallback],
  ])('sends a GET with the path, query and headers that undici.request sends (parts from the %s)', async (_, { request }) => {
    const seen: { url?: string; method?: string; header?: string }[] = [];
    const server = createServer((req, res) => {
      seen.push({ url: req.url, method: req.method, header: req.headers['x-probe'] as string });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent();
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const path of ['/api/images/?limit=2&offset=4', '/api/images/']) {
        const options = { dispatcher: agent, method: 'GET' as const, headers: { 'x-probe': 'yes' }, signal: new AbortController().signal };
        const ours = await request(new URL(base + path), options);
        const theirs = await undici.request(new URL(base + path), options);
        expect([ours.statusCode, await ours.body.text()]).toEqual([theirs.statusCode, await theirs.body.text()]);
      }
      expect(seen).toEqual([
        { url: '/api/images/?limit=2&offset=4', method: 'GET', header: 'yes' },
        { url: '/api/images/?limit=2&offset=4', method: 'GET', header: 'yes' },
        { url: '/api/images/', method: 'GET', header: 'yes' },
        { url: '/api/images/', method: 'GET', header: 'yes' },
      ]);
    } finally {
      await agent.close();
      server.close();
    }
  });
});
