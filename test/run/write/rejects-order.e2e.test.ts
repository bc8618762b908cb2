/**
 * rejects.ndjson depends only on the records,
 * never on where in a list they were found. Its lines come in the order of their keys (a usable id ascending, then the
 * content hash of a record without one), and each names where the record can be fetched alone (its own URL) rather
 * than the page it was found on. Real CLI against a scripted list over loopback HTTP.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { madeRecords, startListServer } from '../../helpers/list-server.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';
import type { ScriptedServer } from '../../helpers/scripted-server.js';

const servers: ScriptedServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const d of dirs.splice(0)) await removeDir(d);
});

/** Valid records with three rejects among them: two with a usable id, one whose id is not an integer. */
function listed(): unknown[] {
  const records: unknown[] = madeRecords(30);
  records.splice(25, 0, { ...(records[3] as object), id: 77, file_size: 'large' });
  records.splice(4, 0, { ...(records[5] as object), id: 'x-1', name: 'no usable id' });
  records.splice(12, 0, { ...(records[8] as object), id: 5, add_date: 'yesterday' });
  return records;
}

/** Snapshots the records served in `order` into a new folder; resolves to rejects.ndjson's text and the origin. */
async function rejectsOf(records: unknown[]): Promise<{ text: string; origin: string }> {
  const server = await startListServer(records);
  servers.push(server);
  const out = await tempDir();
  dirs.push(out);
  const run = await runCliHere(['--base-url', server.origin, '--out', out, '--page-size', '7', '--quiet']);
  expect([run.code, run.stderr]).toEqual([0, '']);
  return { text: await readFile(join(out, 'rejects.ndjson'), 'utf8'), origin: server.origin };
}

describe('rejects.ndjson whatever the order records were served in', () => {
  it('holds the same bytes when the list serves them in another order, and names each record’s own URL', async () => {
    const records = listed();
    const first = await rejectsOf(records);
    const second = await rejectsOf([...records].reverse());
    const lines = first.text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const parsed = lines.map((l) => JSON.parse(l) as { url: string; record: { id: unknown } });
    // Usable ids ascending, then the record without one.
    expect(parsed.map((p) => p.record.id)).toEqual([5, 77, 'x-1']);
    expect(parsed.map((p) => p.url)).toEqual([
      `${first.origin}/api/images/5/`,
      `${first.origin}/api/images/77/`,
      `${first.origin}/api/images/`,
    ]);
    expect(second.text).toBe(first.text.replaceAll(first.origin, second.origin));
  });
});
