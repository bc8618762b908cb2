/**
 * --keep prunes only the snapshot folders img-etl wrote, counting complete ones, and keeps a user's files inside a
 * snapshot folder it prunes. The real CLI over loopback HTTP on a real file system.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SummaryDocument } from '../../../src/cli/printing/summary.js';
import { type RunningService } from '../../../src/service/index.js';
import { runAsCli } from '../../helpers/library-run.js';
import { madeRecords, startListServer } from '../../helpers/list-server.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';
import { type ScriptedServer } from '../../helpers/scripted-server.js';

let out: string;
let server: ScriptedServer | undefined;
let service: RunningService | undefined;
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await server?.close();
  await service?.close();
  server = service = undefined;
  await removeDir(out);
});

describe('--keep', () => {
  it(
    'deletes only snapshot folders img-etl wrote, counts complete ones, and prunes ' +
      'incomplete ones older than the newest complete',
    async () => {
      const records = madeRecords(30);
      let count = 30;
      server = await startListServer(records, { count: () => count });
      const thesis = join(out, '20200101T000000.000Z');
      await mkdir(thesis);
      await writeFile(join(thesis, 'thesis.docx'), 'years of work');
      const snap = (...extra: string[]) =>
        runCliHere([
          '--base-url',
          server!.origin,
          '--out',
          out,
          '--snapshot',
          '--keep',
          '1',
          '--max-passes',
          '1',
          ...extra,
        ]);
      expect((await snap()).code).toBe(0);
      const [first] = (await readdir(out)).filter((n) => n.startsWith('2026') || n > '2021');
      count = 31; // one record never sent: an incomplete snapshot
      expect((await snap()).code).toBe(3);
      count = 30;
      const last = await snap('--summary', 'json');
      expect(last.code).toBe(0);
      const pruned = (JSON.parse(last.stdout) as SummaryDocument).pruned!;
      expect(pruned.map((p) => [p.complete, p.reason])).toEqual([
        [true, 'beyond the newest 1 complete'],
        [false, 'incomplete, older than the newest complete snapshot'],
      ]);
      expect(pruned[0]!.name).toBe(first);
      const left = (await readdir(out)).sort();
      expect(left).toHaveLength(3);
      expect(left[0]).toBe('20200101T000000.000Z');
      expect(await readFile(join(thesis, 'thesis.docx'), 'utf8')).toBe('years of work');
      expect(left.at(-1)).toBe('latest');
    },
  );
});

describe('--keep and files of the user inside a snapshot folder', () => {
  it("deletes the files img-etl wrote there and keeps the folder with the user's files, saying so", async () => {
    server = await startListServer(madeRecords(10));
    const snap = (...extra: string[]) =>
      runCliHere(['--base-url', server!.origin, '--out', out, '--snapshot', '--quiet', '--summary', 'json', ...extra]);
    // The first snapshot, pruned by the runs below: taken by the library as the CLI takes it with snap()'s arguments.
    expect((await runAsCli({ baseUrl: server.origin, outDir: out, snapshot: true })).manifest.complete).toBe(true);
    const [first] = await readdir(out);
    await writeFile(join(out, first!, 'analysis.ipynb'), 'my notebook');
    const second = await snap('--keep', '1');
    expect(second.code).toBe(0);
    const pruned = (JSON.parse(second.stdout) as SummaryDocument).pruned!;
    expect(pruned).toEqual([
      {
        name: first,
        complete: true,
        reason: 'beyond the newest 1 complete; the folder stays for the files img-etl did not write in it',
      },
    ]);
    expect(await readdir(join(out, first!))).toEqual(['analysis.ipynb']);
    expect(await readFile(join(out, first!, 'analysis.ipynb'), 'utf8')).toBe('my notebook');
    const [, secondName] = (await readdir(out)).sort();
    const third = await snap('--keep', '1'); // the first folder is no longer a snapshot: left alone
    expect(third.code).toBe(0);
    expect((JSON.parse(third.stdout) as SummaryDocument).pruned?.map((p) => p.name)).toEqual([secondName]);
    expect(await readdir(join(out, first!))).toEqual(['analysis.ipynb']);
  });
});
