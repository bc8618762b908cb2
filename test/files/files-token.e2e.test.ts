/**
 * `img-etl files` sends the token (IMG_ETL_TOKEN or --token) only to a service the user named (--base-url)
 * or to the default one (https://neurovault.org), never to whatever host a snapshot's `img-etl.source_url` names. A
 * loopback service records the Authorization header of every request; it is snapshotted by the real CLI (without a
 * token), then the files are fetched from the snapshot.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { niftiBytes, type Rec, snapshotOf, startMediaServer } from '../helpers/files-run.js';
import { madeRecords } from '../helpers/list-server.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCli } from '../helpers/run-cli.js';
import type { ScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'users-own-token-0123456789';
const FILE = '/media/images/5/map.nii.gz';
let root: string;
let server: ScriptedServer;
let snap: string;
let counter = 0;
const fresh = (): string => join(root, `out-${++counter}`);

beforeAll(async () => {
  root = await tempDir();
  const bytes = niftiBytes(41, 3000);
  const records = (origin: string): Rec[] =>
    madeRecords(1).map((record) => ({
      ...record,
      id: 41,
      url: `${origin}/images/41/`,
      collection: `${origin}/collections/5/`,
      collection_id: 5,
      file: `${origin}${FILE}`,
      file_size: bytes.length,
    }));
  server = await startMediaServer(records, new Map([[FILE, bytes]]));
  snap = await snapshotOf({ url: server.origin }, join(root, 'snap'));
});

afterAll(async () => {
  await server.close();
  await removeDir(root);
});

/** The requests for the file since `from`, as whether each carried the token. */
function fileRequests(from: number): boolean[] {
  return server.seen.slice(from).map((r) => r.headers['authorization'] === `Token ${TOKEN}`);
}

const notice = (origin: string): string =>
  `img-etl: files: the token is not sent to ${origin}, the service the snapshot names; ` +
  `give --base-url ${origin} to send it there`;

it("without --base-url, fetches from the snapshot's host without the token and says so in one line", async () => {
  for (const [args, env] of [
    [[], { IMG_ETL_TOKEN: TOKEN }],
    [['--token', TOKEN], {}],
  ] as const) {
    const from = server.seen.length;
    const run = await runCli(['files', snap, '--out', fresh(), '--progress-interval', '3600', ...args], { env });
    expect(run.code).toBe(0);
    expect(fileRequests(from)).toEqual([false]);
    expect(run.stderr.split('\n').filter((line) => line.includes('token'))).toEqual([notice(server.origin)]);
    expect(run.stderr).not.toContain(TOKEN);
  }
  // --dry-run's sample request too.
  const from = server.seen.length;
  const dry = await runCli(['files', snap, '--out', fresh(), '--dry-run'], { env: { IMG_ETL_TOKEN: TOKEN } });
  expect(dry.code).toBe(0);
  expect(fileRequests(from)).toEqual([false]);
  expect(dry.stderr).toBe(`${notice(server.origin)}\n`);
});

it('--log-format json: the notice is one warn line, token_withheld, naming the service', async () => {
  const run = await runCli(['files', snap, '--out', fresh(), '--log-format', 'json'], {
    env: { IMG_ETL_TOKEN: TOKEN },
  });
  expect(run.code).toBe(0);
  const lines = run.stderr
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const withheld = lines.filter((line) => line['event'] === 'token_withheld');
  expect(withheld.map(({ ts, ...rest }) => [typeof ts, rest])).toEqual([
    ['string', { level: 'warn', event: 'token_withheld', base_url: server.origin }],
  ]);
});

it("with --base-url naming the snapshot's host, sends the token, and says nothing of it", async () => {
  const from = server.seen.length;
  const run = await runCli(['files', snap, '--out', fresh(), '--base-url', server.origin, '--quiet'], {
    env: { IMG_ETL_TOKEN: TOKEN },
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(fileRequests(from)).toEqual([true]);
});
