/**
 * Issue 23, case 2: only DRF's own JSON answer (`{"detail": …}`) says a collection's list is private (403) or gone
 * (404). A proxy's or firewall's HTML page with that status is a failure to read the list: retried, then exit 1 with
 * the staging kept, never the collection's records left out of a complete snapshot. Real CLI against a scripted
 * service with the collection endpoints over loopback HTTP.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordsIn, startCollectionsServer } from '../../helpers/collections-server.js';
import { readManifest } from '../../helpers/read-manifest.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCliHere, type CliRun } from '../../helpers/run-cli.js';
import type { ScriptedServer } from '../../helpers/scripted-server.js';

let out: string;
let server: ScriptedServer | undefined;
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await removeDir(out);
});

/** A proxy's own page for a status, as nginx writes it. */
const proxyPage = (status: number) =>
  `<html>\r\n<head><title>${status}</title></head>\r\n<body>\r\n<center><h1>${status}</h1></center>\r\n` +
  '<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
const DRF_DETAIL: Record<number, string> = {
  403: 'You do not have permission to perform this action.',
  404: 'Not found.',
};

/**
 * Collections 1, 2 and 3 of ten records each; the image list skips record 205, so collection 2 comes up short and is
 * read through its own list, which answers `status` in `body`. Collection 2 turned private (or was deleted) after the
 * list's first page: its later pages no longer count its records.
 */
async function readShortCollection(status: number, body: { type: string; body: string }): Promise<CliRun> {
  const [a, b, c] = [recordsIn(1, 10, 100), recordsIn(2, 10, 200), recordsIn(3, 10, 300)];
  const records = a.flatMap((r, i) => [r, b[i]!, c[i]!]);
  server = await startCollectionsServer({
    records,
    unserved: [205],
    count: (offset) => (offset === 0 ? 30 : 20),
    answer: (collection) => (collection === 2 ? { status, ...body } : undefined),
  });
  return runCliHere([
    ...['--base-url', server.origin, '--out', out, '--page-size', '10'],
    ...['--retry-delay', '0.01', '--max-attempts', '3', '--quiet'],
  ]);
}

/** Requests for collection 2's own list. */
const collectionRequests = () => server!.requests.filter((u) => u.startsWith('/api/collections/2/images/')).length;

describe("a collection's own list answering 403 or 404", () => {
  it.each([403, 404])(
    "in a proxy's HTML page (%i): retried, then exit 1 with one line naming the URL, the staging kept",
    async (status) => {
      const run = await readShortCollection(status, { type: 'text/html', body: proxyPage(status) });
      expect(run.code).toBe(1);
      const staging = join(out, '.img-etl-staging');
      const url = `${server!.origin}/api/collections/2/images/?limit=10&offset=0`;
      expect(run.stderr).toMatch(
        new RegExp(
          `^img-etl: extract: GET ${url.replace(/[?.]/g, '\\$&')} returned ${status} after 3 attempts; ` +
            `\\d+ pages are kept in ${staging.replace(/[.]/g, '\\.')}: run the same command again to resume\\n$`,
        ),
      );
      expect(collectionRequests()).toBe(3);
      expect(existsSync(join(staging, 'journal.ndjson'))).toBe(true);
      expect(existsSync(join(out, 'manifest.json'))).toBe(false);
    },
  );

  it.each([403, 404])("in DRF's JSON (%i): private or deleted, its records left out, not retried", async (status) => {
    const detail = JSON.stringify({ detail: DRF_DETAIL[status] });
    const run = await readShortCollection(status, { type: 'application/json', body: detail });
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(collectionRequests()).toBe(1);
    const manifest = await readManifest(out);
    expect(manifest.completeness.unreadable).toEqual([{ id: 2, status, dropped: 9 }]);
    expect(manifest).toMatchObject({ complete: true, missing: 0, records_written: 20 });
    const why = status === 403 ? 'private now' : 'deleted';
    expect(run.stdout).toContain(`  left out  collection 2 answered ${status} (${why}): 9 records of it left out`);
  });
});
