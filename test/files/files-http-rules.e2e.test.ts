/**
 * `img-etl files` follows the listing's rules for the token and redirects (src/extract/http-client.ts,
 * same-host.ts). In front of the bundled service stands a proxy answering plain HTTP and HTTPS on one port (a
 * self-signed loopback certificate the CLI trusts through NODE_EXTRA_CA_CERTS), writing its own origin into the links
 * as `http://` (as NeuroVault does for its https site), and redirecting some files as each test scripts.
 * - The token (`--token` or IMG_ETL_TOKEN) goes with every file request to the service's host, redirects on it too;
 *   each test names the service with --base-url, as the token goes only to a service the user names (files-token).
 * - A redirect to another host is refused: the file is `failed` and that host is never asked, so never sent the token.
 * - An `http://` service redirecting to `https://` on its host is followed, with the token.
 * - An `https://` service: its `http://` links are fetched over https directly; a redirect down to `http://` on its
 *   host is followed without the token.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/service/index.js';
import { LOOPBACK_CERT, startDualProtocolServer, type DualProtocolServer } from '../helpers/dual-protocol-server.js';
import {
  bytesOf,
  fileSizeWithin,
  landingPath,
  readFilesTable,
  type Rec,
  servedBytes,
  whereIds,
} from '../helpers/files-run.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCli, runCliHere } from '../helpers/run-cli.js';

/** What the proxy does with a file's path: `upgrade` (http → https), `downgrade` (https → http), `hop` (to another
 * path on the host), `away` (to the bundled service's own origin: another host). */
type Script = 'upgrade' | 'downgrade' | 'hop' | 'away';

const TOKEN = 'files-token-0123456789';
const TLS_ENV = { NODE_EXTRA_CA_CERTS: LOOPBACK_CERT };
let service: RunningService;
let proxy: DualProtocolServer;
let root: string;
let records: Rec[];
const scripts = new Map<string, Script>();
let counter = 0;
const fresh = (): string => join(root, `out-${++counter}`);

/** Forwards a request to the bundled service, with the links of a JSON body on the proxy's origin (as http://). */
async function forward(req: IncomingMessage, res: ServerResponse, path: string, port: number): Promise<void> {
  const range = req.headers.range;
  const upstream = await fetch(`${service.url}${path}`, { headers: range === undefined ? {} : { range } });
  let body = Buffer.from(await upstream.arrayBuffer());
  const type = upstream.headers.get('content-type') ?? 'application/octet-stream';
  if (type.includes('json')) body = Buffer.from(body.toString('utf8').replaceAll(service.url, origin('http', port)));
  const headers: Record<string, string | number> = { 'content-type': type, 'content-length': body.length };
  const contentRange = upstream.headers.get('content-range');
  if (contentRange !== null) headers['content-range'] = contentRange;
  res.writeHead(upstream.status, headers).end(body);
}

function origin(scheme: 'http' | 'https', port: number): string {
  return `${scheme}://127.0.0.1:${port}`;
}

function answer(req: IncomingMessage, res: ServerResponse, scheme: 'http' | 'https', port: number): void {
  const url = req.url ?? '/';
  const path = url.startsWith('/hop/') ? url.slice('/hop'.length) : url;
  const script = url.startsWith('/hop/') ? undefined : scripts.get(url);
  const redirect = (to: string): void => void res.writeHead(302, { location: to, 'content-length': 0 }).end();
  if (script === 'upgrade' && scheme === 'http') return redirect(`${origin('https', port)}${url}`);
  if (script === 'downgrade' && scheme === 'https') return redirect(`${origin('http', port)}${url}`);
  if (script === 'hop') return redirect(`/hop${url}`);
  if (script === 'away') return redirect(`${service.url}${url}`);
  forward(req, res, path, port).catch(() => res.destroy());
}

beforeAll(async () => {
  service = await startService({ records: 120, seed: 31 });
  proxy = await startDualProtocolServer(answer);
  root = await tempDir();
  records = [...service.servedRecords()].filter(fileSizeWithin(1, 200_000));
});

afterAll(async () => {
  await proxy.close();
  await service.close();
  await removeDir(root);
});

/** A snapshot of the proxy taken by the real CLI at `base` (`http` or `https`). */
async function snapshot(scheme: 'http' | 'https'): Promise<string> {
  const out = join(root, `snap-${scheme}`);
  const run = await runCli(['--base-url', origin(scheme, proxy.port), '--out', out, '--quiet'], { env: TLS_ENV });
  if (run.code !== 0) throw new Error(`snapshot of the proxy over ${scheme} exited ${run.code}: ${run.stderr}`);
  return out;
}

/** The proxy's requests for a record's file, as [scheme, whether it was sent the token]. */
function fileRequests(record: Rec): [string, string | undefined][] {
  const path = new URL(record['file'] as string).pathname;
  return proxy.seen.filter((r) => r.url === path || r.url === `/hop${path}`).map((r) => [r.scheme, r.authorization]);
}

async function expectServed(out: string, record: Rec): Promise<void> {
  const served = await servedBytes(`${service.url}${new URL(record['file'] as string).pathname}`);
  expect((await bytesOf(join(out, landingPath(record)))).equals(served)).toBe(true);
}

it('sends the token (--token or IMG_ETL_TOKEN) with every file request, a same-host redirect included', async () => {
  const snap = await snapshot('http');
  const [plain, hopped, byEnv] = records;
  scripts.set(new URL(hopped!['file'] as string).pathname, 'hop');
  const out = fresh();
  const named = ['--base-url', origin('http', proxy.port)]; // the token goes to a service the user names
  const run = await runCliHere([
    'files',
    snap,
    '--out',
    out,
    ...named,
    ...whereIds([plain!, hopped!]),
    '--token',
    TOKEN,
    '--quiet',
  ]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(fileRequests(plain!)).toEqual([['http', `Token ${TOKEN}`]]);
  expect(fileRequests(hopped!)).toEqual([
    ['http', `Token ${TOKEN}`],
    ['http', `Token ${TOKEN}`],
  ]);
  for (const record of [plain!, hopped!]) await expectServed(out, record);

  const fromEnv = fresh();
  const envRun = await runCli(['files', snap, '--out', fromEnv, ...named, ...whereIds([byEnv!]), '--quiet'], {
    env: { IMG_ETL_TOKEN: TOKEN },
  });
  expect(envRun.code).toBe(0);
  expect(fileRequests(byEnv!)).toEqual([['http', `Token ${TOKEN}`]]);
});

it('refuses a redirect to another host: the file is failed, that host never asked (never sent the token)', async () => {
  const snap = await snapshot('http');
  const record = records[3]!;
  const path = new URL(record['file'] as string).pathname;
  scripts.set(path, 'away');
  service.resetStats();
  const out = fresh();
  const named = ['--base-url', origin('http', proxy.port)];
  const run = await runCliHere([
    'files',
    snap,
    '--out',
    out,
    ...named,
    ...whereIds([record]),
    '--token',
    TOKEN,
    '--quiet',
  ]);
  expect(run.code).toBe(3);
  expect(fileRequests(record)).toEqual([['http', `Token ${TOKEN}`]]);
  expect(service.stats.files.log.filter((e) => e.path === path)).toEqual([]);
  const [row] = await readFilesTable(out);
  expect(row!['status']).toBe('failed');
  expect(row!['reason']).toContain('redirected to another host');
  expect(run.stderr).not.toContain(TOKEN);
});

it('follows an http service redirecting a file to https on its host, with the token', async () => {
  const snap = await snapshot('http');
  const record = records[4]!;
  scripts.set(new URL(record['file'] as string).pathname, 'upgrade');
  const out = fresh();
  const named = ['--base-url', origin('http', proxy.port)];
  const run = await runCli(
    ['files', snap, '--out', out, ...named, ...whereIds([record]), '--token', TOKEN, '--quiet'],
    {
      env: TLS_ENV,
    },
  );
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(fileRequests(record)).toEqual([
    ['http', `Token ${TOKEN}`],
    ['https', `Token ${TOKEN}`],
  ]);
  await expectServed(out, record);
});

it('fetches http links of an https service over https; a redirect down to http goes without the token', async () => {
  const snap = await snapshot('https');
  const [direct, down] = [records[5]!, records[6]!];
  expect(direct['file'] as string).toMatch(/^http:\/\//); // as the proxy lists them
  scripts.set(new URL(down['file'] as string).pathname, 'downgrade');
  const out = fresh();
  const named = ['--base-url', origin('https', proxy.port)];
  const args = [...named, ...whereIds([direct, down]), '--token', TOKEN, '--quiet'];
  const run = await runCli(['files', snap, '--out', out, ...args], {
    env: TLS_ENV,
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(fileRequests(direct)).toEqual([['https', `Token ${TOKEN}`]]);
  expect(fileRequests(down)).toEqual([
    ['https', `Token ${TOKEN}`],
    ['http', undefined],
  ]);
  for (const record of [direct, down]) await expectServed(out, record);
});

it('--dry-run times its sample range request with the token too, and fetches nothing more', async () => {
  const snap = await snapshot('http');
  const record = records[7]!;
  const out = fresh();
  const named = ['--base-url', origin('http', proxy.port)];
  const run = await runCliHere([
    'files',
    snap,
    '--out',
    out,
    ...named,
    ...whereIds([record]),
    '--token',
    TOKEN,
    '--dry-run',
  ]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(fileRequests(record)).toEqual([['http', `Token ${TOKEN}`]]);
  expect(run.stdout).not.toContain(TOKEN);
});
