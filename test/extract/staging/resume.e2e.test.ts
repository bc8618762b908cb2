/**
 * A run killed with SIGKILL at several points, or stopped with Ctrl-C, resumes with the same command:
 * pages already fetched are not fetched again, and the files equal an uninterrupted run's. A staged page
 * edited on disk, still valid JSON, is dropped and fetched again, never published; so is one replaced by a symbolic
 * link, a FIFO or a file of another size, refused before a byte of it is read.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGING_FORMAT } from '../../../src/extract/staging/staging-identity.js';
import { type JournalEntry, type JournalPage } from '../../../src/extract/staging/journal.js';
import type { RunningService } from '../../../src/service/index.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { readParquetRows } from '../../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { cliArgv, runCli, runCliHere } from '../../helpers/run-cli.js';

let service: RunningService;
let reference: string;
/** The uninterrupted run's images.csv and images.parquet rows, read once. */
let referenceCsv: Buffer;
let referenceRows: Record<string, unknown>[];
const dirs: string[] = [];
const args = (out: string) => [
  '--base-url',
  service.url,
  '--out',
  out,
  '--to',
  'parquet,csv',
  '--page-size',
  '40',
  '--concurrency',
  '2',
];
const PAGES = Math.ceil(1259 / 40);

beforeAll(async () => {
  // Slow enough that a run can be caught in the middle: two workers, 15 ms a page.
  service = await startFixtureService({ records: 1200, seed: 21, faults: { workers: 2, pageLatencyMs: 15 } });
  reference = await tempDir();
  const run = await runCliHere(args(reference));
  expect(run.code).toBe(0);
  referenceCsv = await readFile(join(reference, 'images.csv'));
  referenceRows = await readParquetRows(reference);
});

afterAll(async () => {
  await service?.close();
  for (const dir of [reference, ...dirs]) await removeDir(dir);
});

/** Lines of the staging journal so far. */
async function journal(out: string): Promise<string[]> {
  const text = await readFile(join(out, '.img-etl-staging', 'journal.ndjson'), 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l.endsWith('}'));
}

/** Starts the CLI and sends `signal` once `ready(journal lines)` holds; resolves to the exit code and stderr. */
async function interrupt(
  out: string,
  ready: (lines: string[]) => boolean,
  signal: NodeJS.Signals,
  more: string[] = [],
): Promise<{ code: number | null; signal: string | null; stderr: string; staged: number; imagePages: number }> {
  const child = spawn(process.execPath, cliArgv([...args(out), ...more]), { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  // 'close', not 'exit': stderr is read after it, and a process can exit before its pipes have given all it wrote.
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('close', (code, sig) => resolve({ code, signal: sig })),
  );
  for (let i = 0; i < 4000; i++) {
    const lines = await journal(out);
    if (ready(lines)) {
      child.kill(signal);
      break;
    }
    await sleep(2);
  }
  const end = await exited;
  const lines = await journal(out);
  const staged = lines.filter((l) => /^\{"type":"(?:page|collections-page|collection-page)"/.test(l)).length;
  return { ...end, stderr, staged, imagePages: lines.filter((l) => l.startsWith('{"type":"page"')).length };
}

/** Staged pages of the image list in a journal. */
const imagePages = (lines: string[]) => lines.filter((l) => l.startsWith('{"type":"page"')).length;

/** Valid records on the staged pages of a journal (those a resume may sample). */
function stagedRecords(lines: string[]): number {
  const pages = lines.map((l) => JSON.parse(l) as JournalEntry).filter((e) => e.type === 'page' && e.file !== null);
  return pages.reduce((n, e) => n + (e as JournalPage).ids.filter((id) => id !== null).length, 0);
}

async function expectSameAsReference(out: string): Promise<void> {
  // Buffer.equals, not toEqual: vitest compares a Buffer element by element, seconds for these 870 kB.
  expect((await readFile(join(out, 'images.csv'))).equals(referenceCsv), 'images.csv').toBe(true);
  expect(await readParquetRows(out)).toEqual(referenceRows);
  const files = ['collections.csv', 'collections.parquet', 'images.csv', 'images.parquet', 'manifest.json'];
  expect((await readdir(out)).sort()).toEqual(files);
  expect(existsSync(join(out, '.img-etl-staging'))).toBe(false);
}

describe('resume', () => {
  it.each([
    ['after the first page', (lines: string[]) => imagePages(lines) >= 1],
    ['in the middle of the pass', (lines: string[]) => imagePages(lines) >= Math.floor(PAGES / 2)],
    ['after the last page, while publishing', (lines: string[]) => lines.some((l) => l.includes('"type":"pass-end"'))],
  ])('SIGKILL %s, then the same command: nothing fetched twice, files equal an uninterrupted run', async (_, ready) => {
    const out = await tempDir();
    dirs.push(out);
    const killed = await interrupt(out, ready, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const sampled = Math.min(20, stagedRecords(await journal(out)));
    service.resetStats();
    const resumed = await runCliHere(args(out));
    expect(resumed.code).toBe(0);
    // Each page not staged before the kill is fetched exactly once, and no staged page again; before resuming, a
    // sample of the staged records is fetched again by id to check the service still holds them.
    expect(service.stats.listRequests).toBe(PAGES - killed.imagePages);
    expect(service.stats.detailRequests).toBe(sampled);
    await expectSameAsReference(out);
  });

  const snapshotKill =
    "SIGKILL in the middle of a --snapshot run (its kind the journal's first line), then the same command: " +
    'nothing fetched twice';
  it(snapshotKill, async () => {
    const out = await tempDir();
    dirs.push(out);
    const middle = (lines: string[]) => imagePages(lines) >= Math.floor(PAGES / 2);
    const killed = await interrupt(out, middle, 'SIGKILL', ['--snapshot']);
    expect(killed.signal).toBe('SIGKILL');
    expect((await journal(out))[0]).toMatch(/^\{"type":"base","name":null/);
    const sampled = Math.min(20, stagedRecords(await journal(out)));
    service.resetStats();
    const resumed = await runCliHere([...args(out), '--snapshot']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(service.stats.listRequests).toBe(PAGES - killed.imagePages);
    expect(service.stats.detailRequests).toBe(sampled);
    expect((await readFile(join(out, 'latest', 'images.csv'))).equals(referenceCsv)).toBe(true);
  });

  it('Ctrl-C stops cleanly with exit code 130 and says how to resume; the same command then finishes', async () => {
    const out = await tempDir();
    dirs.push(out);
    const stopped = await interrupt(out, (lines) => lines.length >= 5, 'SIGINT');
    expect(stopped.code).toBe(130);
    expect(stopped.stderr.trim().split('\n').at(-1)).toBe(
      `img-etl: interrupted; ${stopped.staged} pages are kept in ` +
        `${join(out, '.img-etl-staging')}: run the same command again to resume`,
    );
    expect(await readdir(out)).toEqual(['.img-etl-staging']);
    const resumed = await runCliHere(args(out));
    expect(resumed.code).toBe(0);
    await expectSameAsReference(out);
  });

  it('refuses to resume staging of another source, and --fresh discards it', async () => {
    const out = await tempDir();
    dirs.push(out);
    await interrupt(out, (lines) => lines.length >= 2, 'SIGKILL');
    const other = await runCliHere(['--base-url', 'http://127.0.0.1:9', '--out', out]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`holds an unfinished run of ${service.listUrl} with page size 40`);
    const fresh = await runCliHere([...args(out), '--fresh']);
    expect(fresh.code).toBe(0);
    await expectSameAsReference(out);
  });
});

/** Edits a value of a staged page on disk, still valid JSON: a letter of a name in the other case, or a longer name. */
async function editName(path: string, sameLength: boolean): Promise<void> {
  const text = await readFile(path, 'utf8');
  const swap = (letter: string) => (letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase());
  const edited = sameLength
    ? text.replace(/("name":\s*"[^"\\]*?)([A-Za-z])/, (_, before: string, letter: string) => before + swap(letter))
    : text.replace(/"name":\s*"/, '$&edited by hand, ');
  expect(edited).not.toBe(text);
  expect(edited.length === text.length).toBe(sameLength);
  expect(() => JSON.parse(edited) as unknown).not.toThrow();
  await writeFile(path, edited);
}

/** A staged page's JSON with `bytes` spaces before its closing brace: the same records, another size. */
function padded(page: string, bytes: number): string {
  return page.replace(/}\s*$/, ' '.repeat(bytes) + '}');
}

/** Rewrites the staging journal's lines through `change`. */
async function rewriteJournal(out: string, change: (entry: Record<string, unknown>) => Record<string, unknown>) {
  const path = join(out, '.img-etl-staging', 'journal.ndjson');
  const lines = await journal(out);
  await writeFile(
    path,
    lines.map((l) => JSON.stringify(change(JSON.parse(l) as Record<string, unknown>)) + '\n').join(''),
  );
}

describe('a staged page changed on disk', () => {
  /** A run killed in the middle of the pass, once: each test changes a copy of what it left. */
  let once: { out: string; killed: Awaited<ReturnType<typeof interrupt>> };
  beforeAll(async () => {
    const out = await tempDir();
    dirs.push(out);
    const killed = await interrupt(out, (lines) => imagePages(lines) >= Math.floor(PAGES / 2), 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    once = { out, killed };
  });

  /** A copy of the killed run's folder, its staging, and a staged file of the image list and collections list. */
  async function killedRun() {
    const out = await tempDir();
    dirs.push(out);
    await cp(once.out, out, { recursive: true });
    const { killed } = once;
    const staging = join(out, '.img-etl-staging');
    const files = (await readdir(staging)).sort();
    const imagePage = files.find((f) => /^p1-0-\d+\.json$/.test(f))!;
    const collectionsPage = files.find((f) => /^l1-1-0-\d+\.json$/.test(f))!;
    expect(imagePage).toBeDefined();
    expect(collectionsPage).toBeDefined();
    return { out, staging, killed, imagePage, collectionsPage };
  }

  it.each([
    ['the same length', true, "changed on disk since it was staged \\(its sha256 is not the journal's\\)"],
    ['another length', false, 'is \\d+ bytes; the journal says \\d+'],
  ])(
    'edited to %s but valid: dropped with a notice and fetched again, the files hold what was served',
    async (_, same, reason) => {
      const { out, staging, killed, imagePage, collectionsPage } = await killedRun();
      await editName(join(staging, imagePage), same);
      await editName(join(staging, collectionsPage), same);
      service.resetStats();
      const resumed = await runCliHere(args(out));
      expect(resumed.stderr).toMatch(
        new RegExp(
          `img-etl: staging: 2 staged pages in .* could not be read back ` +
            `\\(${collectionsPage.replaceAll('.', '\\.')}: ${reason}\\); fetching them again`,
        ),
      );
      expect(resumed.code).toBe(0);
      // the edited page of the image list is fetched again, and only it of the staged ones
      expect(service.stats.listRequests).toBe(PAGES - killed.imagePages + 1);
      await expectSameAsReference(out);
      const collections = await readFile(join(reference, 'collections.csv'));
      expect((await readFile(join(out, 'collections.csv'))).equals(collections), 'collections.csv').toBe(true);
    },
  );

  /** What is put at a staged page's path: a link to /dev/zero, a FIFO, a link to a larger file, a larger file. */
  const replacements: [string, (path: string, page: string) => Promise<void>, string][] = [
    ['a symbolic link to /dev/zero', (path) => symlink('/dev/zero', path), 'is a symbolic link'],
    ['a FIFO', async (path) => void execFileSync('mkfifo', [path]), 'is not a regular file \\(a FIFO\\)'],
    [
      'a symbolic link to a larger regular file (the page padded to 4 MiB, still valid)',
      async (path, page) => {
        const elsewhere = await tempDir();
        dirs.push(elsewhere);
        await writeFile(join(elsewhere, 'large.json'), padded(page, 4 * 1024 * 1024));
        await symlink(join(elsewhere, 'large.json'), path);
      },
      'is a symbolic link',
    ],
    [
      'a larger regular file (the page padded, still valid)',
      (path, page) => writeFile(path, padded(page, 1024)),
      'is \\d+ bytes; the journal says \\d+',
    ],
    ['a folder', (path) => mkdir(path), 'is not a regular file \\(a folder\\)'],
  ];

  it.each(replacements)(
    'replaced by %s: refused before a byte is read, dropped with a notice and fetched again',
    async (_, replace, reason) => {
      const { out, staging, killed, imagePage } = await killedRun();
      const path = join(staging, imagePage);
      const page = await readFile(path, 'utf8');
      await rm(path);
      await replace(path, page);
      service.resetStats();
      // SIGKILL past the time limit: a run reading /dev/zero or blocked on a FIFO does not heed SIGTERM
      const resumed = await runCli(args(out), { timeoutMs: 30_000, killSignal: 'SIGKILL' });
      expect(resumed.stderr).toMatch(
        new RegExp(
          `img-etl: staging: 1 staged page in .* could not be read back ` +
            `\\(${imagePage.replaceAll('.', '\\.')}: ${reason}\\); fetching it again`,
        ),
      );
      expect(resumed.code).toBe(0);
      expect(service.stats.listRequests).toBe(PAGES - killed.imagePages + 1);
      await expectSameAsReference(out);
    },
  );

  it.each([
    ['run.json', 'a symbolic link to /dev/zero', (path: string) => symlink('/dev/zero', path)],
    ['journal.ndjson', 'a FIFO', async (path: string) => void execFileSync('mkfifo', [path])],
    ['journal.ndjson', 'a folder', (path: string) => mkdir(path)],
    ['run.json', 'a folder', (path: string) => mkdir(path)],
  ])('%s replaced by %s: read no further, the run finishes with the files served', async (name, _, replace) => {
    const { out, staging } = await killedRun();
    await rm(join(staging, name));
    await replace(join(staging, name));
    // SIGKILL past the time limit: a run reading /dev/zero or blocked on a FIFO does not heed SIGTERM
    const resumed = await runCli(args(out), { timeoutMs: 30_000, killSignal: 'SIGKILL' });
    expect(resumed.code).toBe(0);
    await expectSameAsReference(out);
  });

  it('a journal line without a checksum is malformed: its page and those after it are fetched again', async () => {
    const { out, imagePage } = await killedRun();
    const lines = await journal(out);
    const at = lines.findIndex((l) => l.includes(`"file":"${imagePage}"`));
    await rewriteJournal(out, (entry) => {
      if (entry['file'] !== imagePage) return entry;
      const { checksum: _, ...rest } = entry;
      return rest;
    });
    service.resetStats();
    const resumed = await runCliHere(args(out));
    expect(resumed.code).toBe(0);
    expect(service.stats.listRequests).toBe(PAGES - imagePages(lines.slice(0, at)));
    await expectSameAsReference(out);
  });

  it('staging of the previous format (no checksums) is discarded with a notice; the run finishes', async () => {
    const { out, staging } = await killedRun();
    const runJson = join(staging, 'run.json');
    await writeFile(runJson, JSON.stringify({ ...(JSON.parse(await readFile(runJson, 'utf8')) as object), format: 3 }));
    await rewriteJournal(out, (entry) => {
      const { checksum: _, ...rest } = entry;
      return rest;
    });
    service.resetStats();
    const resumed = await runCliHere(args(out));
    expect(resumed.stderr).toContain(
      `img-etl: staging: ${staging} was written by another version of img-etl ` +
        `(staging format 3, this one reads ${STAGING_FORMAT}); discarded it and started afresh`,
    );
    expect(resumed.code).toBe(0);
    expect(service.stats.listRequests).toBe(PAGES);
    await expectSameAsReference(out);
  });
});
