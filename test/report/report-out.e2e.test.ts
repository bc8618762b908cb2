/**
 * Where `img-etl report` writes: the page and its numbers are published together, so that a report it cannot finish
 * leaves neither file, not a page without its numbers.
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../../src/service/index.js';
import { fixtureLines } from '../helpers/fixture-service.js';
import { runAsCli } from '../helpers/library-run.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCli, runCliHere } from '../helpers/run-cli.js';

let dir: string;
let snapshot: string;
beforeAll(async () => {
  dir = await tempDir();
  const service = await startService({ data: fixtureLines().slice(0, 12), records: 0 });
  try {
    snapshot = (await runAsCli({ baseUrl: service.url, outDir: join(dir, 'snaps'), snapshot: true })).dataDir;
  } finally {
    await service.close();
  }
});
afterAll(async () => {
  await removeDir(dir);
});

describe('img-etl report --out', () => {
  it('writes no page when its numbers cannot be written (a folder where report.json goes)', async () => {
    const out = join(dir, 'out');
    await mkdir(join(out, 'r.json'), { recursive: true });
    const run = await runCliHere(['report', snapshot, '--out', join(out, 'r.html')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`img-etl: load: cannot publish ${join(out, 'r.json')}: a folder is in the way (EISDIR)\n`);
    expect((await readdir(out)).sort()).toEqual(['r.json']);
  });

  it("refuses to write over a file a snapshot's manifest lists (its sha256 would go stale)", async () => {
    const listed = await readFile(join(snapshot, 'report.html'));
    const run = await runCliHere(['report', snapshot, '--out', join(snapshot, 'report.html')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `img-etl: report: --out: ${join(snapshot, 'report.html')} is a file of the snapshot ${snapshot} ` +
        '(its manifest lists it); give another --out\n',
    );
    expect((await readFile(join(snapshot, 'report.html'))).equals(listed)).toBe(true);
  });
});

describe('img-etl report --out onto a manifest', () => {
  it("refuses to write over a snapshot's manifest.json (the page or its numbers): it left it unreadable", async () => {
    const manifest = await readFile(join(snapshot, 'manifest.json'));
    for (const [out, path] of [
      [join(snapshot, 'manifest.json'), join(snapshot, 'manifest.json')], // the page
      [join(snapshot, 'manifest'), join(snapshot, 'manifest.json')], // its numbers, beside it
    ]) {
      const run = await runCliHere(['report', snapshot, '--out', out!]);
      expect(run.stderr).toBe(
        `img-etl: report: --out: ${path!} is the manifest of the snapshot ${snapshot}; give another --out\n`,
      );
      expect(run.code).toBe(2);
      expect((await readFile(join(snapshot, 'manifest.json'))).equals(manifest)).toBe(true);
    }
  });
});

describe('img-etl report given --out or --against without a value', () => {
  it.each([
    [['--out'], 'out'],
    [['--against', '--out', 'r.html'], 'against'],
  ])('%j is a usage error naming the option, as for a snapshot, and writes nothing', async (args, name) => {
    const cwd = join(dir, `no-value-${name}`);
    await mkdir(cwd);
    const run = await runCli(['report', snapshot, ...args], { cwd });
    expect(run.stderr).toBe(`img-etl: Not enough arguments following: ${name}\n`);
    expect(run.code).toBe(2);
    expect(await readdir(cwd)).toEqual([]);
  });
});
