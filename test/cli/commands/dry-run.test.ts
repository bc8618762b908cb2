/** `--dry-run`: one list request, the plan on stdout, nothing staged or written. The real CLI over loopback HTTP. */
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DryRunPlan } from '../../../src/cli/commands/dry-run.js';
import type { RunningService } from '../../../src/service/index.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';
import { sendJson, startScriptedServer, type ScriptedServer } from '../../helpers/scripted-server.js';

let dir: string;
let out: string;
let service: RunningService | undefined;
let server: ScriptedServer | undefined;
beforeEach(async () => {
  dir = await tempDir();
  out = join(dir, 'out');
});
afterEach(async () => {
  await service?.close();
  await server?.close();
  service = undefined;
  server = undefined;
  await removeDir(dir);
});

describe('--dry-run', () => {
  it(
    'reads the first page of each list only and prints counts, page size, pages, requests, estimated ' +
      'time and sizes; writes nothing',
    async () => {
      service = await startFixtureService({ records: 500, seed: 31 });
      const run = await runCliHere([
        '--base-url',
        service.url,
        '--out',
        out,
        '--dry-run',
        '--page-size',
        '50',
        '--concurrency',
        '3',
        '--to',
        'parquet,csv',
      ]);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(service.stats.listRequests).toBe(1);
      expect(service.stats.collectionRequests).toBe(1);
      expect(existsSync(out)).toBe(false);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe(
        `img-etl: dry run of ${service.listUrl}: the first page of each list only; nothing staged or written`,
      );
      const collections = service.dataset.collections.publicCount;
      expect(Math.ceil(collections / 50)).toBe(1); // one page of collections: the plan says "1 page", not "1 pages"
      const collectionsUrl = new URL('../collections/', service.listUrl).href;
      expect(lines).toContain(
        `  collections ${collections} in 1 page of ${collectionsUrl}, ` +
          'read before and after the pass for the collections table and the proof of completeness',
      );
      expect(lines).toContain('  count       559 records');
      expect(lines).toContain('  page size   50 (as asked)');
      expect(lines).toContain('  pages       12 requests, 3 at a time (4 rounds), before retries and any later pass');
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            String.raw`^ {2}time {8}about \d+ s \(estimate: 12 pages × \d+ ms, the first page's time, ` +
              String.raw`\+ 2 × 1 collection page × \d+ ms, \/ 3 at a time\)$`,
          ),
        ),
      );
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^ {2}parquet {5}at most about [\d.]+ [kM]?B \(estimate: the first page's 50 records written as parquet to a temporary folder, less an empty file, × 559 \/ 50; the whole list compresses better than one page\)$/,
        ),
      );
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^ {2}csv {9}about [\d.]+ [kM]?B \(estimate: the first page's 50 records written as csv to a temporary folder, less an empty file, × 559 \/ 50\)$/,
        ),
      );
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^ {2}served JSON about [\d.]+ [kM]?B \(estimate: the first page's body, [\d.]+ kB, × 559 \/ 50 records\)$/,
        ),
      );
      expect(lines).toHaveLength(9);
    },
  );

  it('--summary json prints the plan as one document, with estimates close to what a real run writes', async () => {
    service = await startFixtureService({ records: 2000, seed: 32 });
    const dry = await runCliHere([
      '--base-url',
      service.url,
      '--out',
      out,
      '--dry-run',
      '--summary',
      'json',
      '--to',
      'csv,arrow',
      '--page-size',
      '100',
    ]);
    expect(dry.code).toBe(0);
    expect(service.stats.listRequests).toBe(1);
    expect(existsSync(out)).toBe(false);
    const plan = JSON.parse(dry.stdout) as DryRunPlan;
    expect(plan).toMatchObject({
      dry_run: true,
      source_url: service.listUrl,
      count: 2059,
      page_size_requested: 100,
      page_size: 100,
      pages: 21,
      concurrency: 2,
      first_page: { records: 100 },
    });
    expect(plan.first_page.bytes).toBeGreaterThan(0);
    const collections = service.dataset.collections.publicCount;
    const { first_page_ms: firstMs, ...listed } = plan.collections as { first_page_ms: number };
    expect(listed).toEqual({
      source_url: new URL('../collections/', service.listUrl).href,
      count: collections,
      pages: Math.ceil(collections / 100),
    });
    expect(firstMs).toBeGreaterThanOrEqual(0);
    const collectionMs = 2 * Math.ceil(collections / 100) * firstMs; // read before and after the pass
    expect(plan.estimated_seconds).toBeCloseTo((21 * plan.first_page.ms + collectionMs) / 2 / 1000, 2);
    expect(Object.keys(plan.estimated_bytes).sort()).toEqual(['arrow', 'csv']);
    expect(plan.estimated_json_bytes).toBe(Math.round((plan.first_page.bytes / 100) * 2059));
    // The real run: CSV and Arrow grow with the records, so the first page predicts them within a quarter.
    const real = await runCliHere(['--base-url', service.url, '--out', out, '--to', 'csv,arrow', '--quiet']);
    expect(real.code).toBe(0);
    for (const [format, name] of [
      ['csv', 'images.csv'],
      ['arrow', 'images.arrow'],
    ] as const) {
      const size = (await stat(join(out, name))).size;
      expect(plan.estimated_bytes[format]! / size).toBeGreaterThan(0.75);
      expect(plan.estimated_bytes[format]! / size).toBeLessThan(1.25);
    }
  });

  it('uses the page size the server applied, from its next link; a service without collections says so', async () => {
    server = await startScriptedServer((req, res, origin) => {
      if (req.url?.startsWith('/api/collections/')) return sendJson(res, { detail: 'Not found.' }, 404);
      const offset = Number(new URL(req.url ?? '/', origin).searchParams.get('offset') ?? 0);
      sendJson(res, {
        count: 95,
        next: `${origin}/api/images/?limit=10&offset=${offset + 10}`,
        previous: null,
        results: [],
      });
    });
    const run = await runCliHere([
      '--base-url',
      server.origin,
      '--out',
      out,
      '--dry-run',
      '--page-size',
      '100',
      '--to',
      'csv',
    ]);
    expect(run.code).toBe(0);
    expect(server.requests).toEqual(['/api/images/?limit=100&offset=0', '/api/collections/?limit=100&offset=0']);
    expect(run.stdout).toContain(
      `  collections none: GET ${server.origin}/api/collections/ returned 404: the service has no collection ` +
        "endpoints, so there is no collections table and completeness rests on the image list's count\n",
    );
    expect(run.stdout).toContain('  page size   10 (asked for 100; the server applied 10)\n');
    expect(run.stdout).toContain(
      '  pages       10 requests, 2 at a time (5 rounds), before retries and any later pass\n',
    );
    expect(run.stdout).toContain('  csv         unknown: the first page has no valid record to write\n');
    expect(existsSync(out)).toBe(false);
  });

  it('fails with exit code 1 and one line when the first page cannot be read, and writes nothing', async () => {
    const run = await runCliHere([
      '--base-url',
      'http://127.0.0.1:9',
      '--out',
      out,
      '--dry-run',
      '--max-attempts',
      '1',
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^img-etl: extract: GET http:\/\/127\.0\.0\.1:9\/api\/images\/\?limit=1000&offset=0 failed \([^)]*ECONNREFUSED[^)]*\); check --base-url\n$/,
    );
    expect(existsSync(out)).toBe(false);
    expect(await readdir(dir)).toEqual([]);
  });
});
