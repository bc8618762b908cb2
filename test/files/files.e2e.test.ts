/**
 * `img-etl files` end to end. A snapshot taken by the real CLI from the bundled service, the real CLI
 * fetching
 * its files over loopback HTTP; the files compared byte for byte with what a plain fetch gets from the service, and
 * files.parquet read back by DuckDB.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type PlannedFileRequest, type RunningService } from '../../src/service/index.js';
import {
  bytesOf,
  fileSizeWithin,
  filesUnder,
  landingPath,
  readFilesTable,
  type Rec,
  servedBytes,
  sha256,
  snapshotOf,
  startSnapshottedService,
  whereIds,
} from '../helpers/files-run.js';
import { removeDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';

let service: RunningService;
let root: string;
let snap: string;
let records: Rec[];
let counter = 0;
const fresh = (): string => join(root, `out-${++counter}`);
const FAST = ['--max-attempts', '3', '--retry-delay', '0.01', '--quiet'];
const small = fileSizeWithin(1, 300_000);

beforeAll(async () => {
  ({ service, root, snap, records } = await startSnapshottedService({ records: 400, seed: 5 }));
});

afterAll(async () => {
  await service.close();
  await removeDir(root);
});

/**
 * Runs `files` on the snapshot with a fault plan for this run only; the service's file log of the run comes back too.
 */
async function filesRun(
  out: string,
  args: string[],
  plan?: (request: PlannedFileRequest, nth: number) => string | undefined,
) {
  const seen = new Map<string, number>();
  service.setFaults({
    filePlan:
      plan === undefined
        ? undefined
        : (request) => {
            const nth = (seen.get(request.path) ?? 0) + 1;
            seen.set(request.path, nth);
            return plan(request, nth) as never;
          },
  });
  service.resetStats();
  try {
    const run = await runCliHere(['files', snap, '--out', out, ...args]);
    return { ...run, log: service.stats.files.log };
  } finally {
    service.setFaults({ filePlan: undefined, fileBytesPerSecond: 0 });
  }
}

describe('a selection by --where', () => {
  it('fetches exactly the matching files, byte-identical to what is served, each in files.parquet', async () => {
    const expected = records.filter(
      (r) => ['T map', 'Z map'].includes(r['map_type'] as string) && small(r) && r['is_thresholded'] === false,
    );
    expect(expected.length).toBeGreaterThan(3);
    expect(expected.length).toBeLessThan(records.length / 2);
    const out = fresh();
    const where = ["map_type in ('T map', 'Z map')", 'file_size > 0', 'file_size <= 300000', 'is_thresholded = false'];
    const run = await filesRun(out, [...where.flatMap((w) => ['--where', w]), '--concurrency', '3', '--quiet']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`complete: ${expected.length} of ${expected.length} files ok`);
    const onDisk = await filesUnder(out);
    expect([...onDisk.keys()]).toEqual([...expected.map((r) => landingPath(r)), 'files.parquet'].sort());
    const table = await readFilesTable(out);
    const byId = [...expected].sort((a, b) => (a['id'] as number) - (b['id'] as number));
    expect(table).toHaveLength(byId.length);
    for (const [i, record] of byId.entries()) {
      const served = await servedBytes(record['file'] as string);
      expect(served.length).toBe(record['file_size']);
      const path = join(out, landingPath(record));
      expect((await bytesOf(path)).equals(served)).toBe(true);
      expect(table[i]).toEqual({
        id: record['id'],
        collection_id: record['collection_id'],
        link: 'file',
        url: record['file'],
        path: landingPath(record), // relative to --out
        bytes: record['file_size'],
        sha256: sha256(served),
        status: 'ok',
        reason: null,
      });
    }
  });

  it('types values by the column and refuses a bad column or value with exit code 2 and one line', async () => {
    for (const [where, says] of [
      ['no_such_column = 1', 'no column "no_such_column" in the output schema\n'],
      ["map_typ = 'T map'", 'no column "map_typ" in the output schema: did you mean map_type?\n'],
      ['number_of_subjects >= many', 'number_of_subjects is a number'],
      ['map_type = T map', 'write the value in single quotes'],
      ['is_valid > true', 'is boolean'],
      ["add_date < 'yesterday'", 'is a timestamp'],
    ] as const) {
      const run = await runCliHere(['files', snap, '--out', fresh(), '--where', where]);
      expect(run.code, where).toBe(2);
      expect(run.stderr.trim().split('\n'), where).toHaveLength(1);
      expect(run.stderr, where).toContain(says);
    }
  });

  it('refuses == and conditions joined by AND or OR saying how to write them, exit code 2', async () => {
    for (const [where, says] of [
      ["map_type == 'Z map'", "== is not an operator: write = (map_type = 'Z map')"],
      [
        "map_type = 'Z map' AND analysis_level = 'group'",
        'one condition per --where, all of which must hold: ' +
          `--where "map_type = 'Z map'" --where "analysis_level = 'group'"`,
      ],
      [
        "map_type = 'Z map' or map_type = 'T map'",
        "conditions cannot be joined with OR; for values of one column use in: map_type in ('Z map', 'T map')",
      ],
      [
        "number_of_subjects >= 20 and map_type like '%map'",
        'one condition per --where, all of which must hold: ' +
          `--where "number_of_subjects >= 20" --where "map_type like '%map'"`,
      ],
    ] as const) {
      const run = await runCliHere(['files', snap, '--out', fresh(), '--where', where]);
      expect(run.stderr, where).toBe(`img-etl: files: --where ${JSON.stringify(where)}: ${says}\n`);
      expect(run.code, where).toBe(2);
    }
    // AND inside a quoted value is the value's
    const quoted = await runCliHere(['files', snap, '--out', fresh(), '--where', "name = 'A and B'", '--dry-run']);
    expect(quoted.stderr).toBe('');
    expect(quoted.code).toBe(0);
  });

  it('a category value no image has, where one differs only in case, gets a line naming it; exit code 0', async () => {
    expect(records.some((r) => r['map_type'] === 'Z map')).toBe(true);
    expect(records.some((r) => r['map_type'] === 'z map')).toBe(false);
    const line = (where: string) =>
      `img-etl: files: --where ${JSON.stringify(where)}: no image has map_type 'z map'; 'Z map' differs only in case ` +
      '(values compare exactly)\n';
    for (const where of ["map_type = 'z map'", "map_type in ('z map', 'T map')"]) {
      const planned = await runCliHere(['files', snap, '--out', fresh(), '--where', where, '--dry-run']);
      expect(planned.stderr, where).toBe(line(where));
      expect(planned.code, where).toBe(0);
    }
    const where = "map_type = 'z map'";
    const run = await filesRun(fresh(), ['--where', where]);
    expect(run.stderr.startsWith(line(where)), run.stderr).toBe(true); // then the progress line
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('0 of 0 files ok');
    // A value no image has in any case is no slip of case: no line.
    const none = await runCliHere(['files', snap, '--out', fresh(), '--where', "map_type = 'Q map'", '--dry-run']);
    expect(none.stderr).toBe('');
  });

  it('--dry-run counts the files and their listed bytes, fields in snake_case, and fetches nothing', async () => {
    const expected = records.filter((r) => r['collection_id'] === records[0]!['collection_id']);
    const thumbnails = expected.filter((r) => typeof r['thumbnail'] === 'string').length;
    expect(thumbnails).toBeGreaterThan(0);
    const out = fresh();
    const run = await filesRun(out, [
      '--where',
      `collection_id = ${String(records[0]!['collection_id'])}`,
      '--with',
      'thumbnail',
      '--dry-run',
      '--summary',
      'json',
    ]);
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout) as { files: number; bytes: number; missing: number; unsized: number };
    expect(plan.files).toBe(expected.length + thumbnails);
    // the listing gives no size for a linked file: the bytes are the maps' file_size, the linked files counted apart
    expect(plan.bytes).toBe(expected.reduce((n, r) => n + (r['file_size'] as number), 0));
    expect(plan.unsized).toBe(thumbnails);
    expect(plan.missing).toBe(expected.filter((r) => r['file_size'] === 0).length);
    // Every field in snake_case, as docs/json-log.md says of each JSON document img-etl prints.
    expect(Object.keys(plan).filter((key) => /[A-Z]/.test(key))).toEqual([]);
    expect(plan).toMatchObject({ base_url: new URL(service.url).origin });
    expect(existsSync(out)).toBe(false);
    expect(run.log.every((entry) => entry.method === 'GET' && entry.range === 'bytes=0-1048575')).toBe(true);
  });

  it('--dry-run --with says the linked files are not in the bytes it lists, their size unknown', async () => {
    const collection = records[0]!['collection_id'];
    const thumbnails = records.filter((r) => r['collection_id'] === collection && typeof r['thumbnail'] === 'string');
    const run = await filesRun(fresh(), [
      '--where',
      `collection_id = ${String(collection)}`,
      '--with',
      'thumbnail',
      '--dry-run',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^img-etl files \(dry run\): \d+ files, [\d.]+ [kMGT]?B listed/);
    const linked = thumbnails.length === 1 ? '1 linked file' : `${thumbnails.length} linked files`;
    const note = `, not counting ${linked} of --with (the listing gives no size for them); `;
    expect(run.stdout).toContain(note);
  });
});

describe('a snapshot of CSV only', () => {
  it('is refused with exit code 2 and one line of the files stage that names no other command', async () => {
    const csvOnly = join(root, 'csv-only');
    const snapshot = await runCliHere(['--base-url', service.url, '--out', csvOnly, '--to', 'csv', '--quiet']);
    expect(snapshot.code).toBe(0);
    for (const [path, says] of [
      [csvOnly, `${csvOnly} holds only images.csv`],
      [join(csvOnly, 'images.csv'), `${join(csvOnly, 'images.csv')} is neither a parquet nor an arrow file`],
    ] as const) {
      const run = await runCliHere(['files', path, '--out', fresh(), '--dry-run']);
      expect(run.code, path).toBe(2);
      expect(run.stderr.trim().split('\n'), path).toHaveLength(1);
      expect(run.stderr.startsWith(`img-etl: files: ${says}`), run.stderr).toBe(true);
      expect(run.stderr, path).toContain('(snapshot with --to parquet or --to arrow)');
      expect(run.stderr, path).not.toMatch(/diff/); // the files command, not diff, read it
    }
  });
});

describe('--with', () => {
  it('fetches the thumbnail and surface links of each selected image into the same folder, one row each', async () => {
    const chosen = records
      .filter((r) => small(r) && typeof r['thumbnail'] === 'string' && typeof r['surface_left_file'] === 'string')
      .slice(0, 3);
    const bare = records.find((r) => small(r) && r['thumbnail'] === null && r['surface_left_file'] === null)!;
    expect(chosen).toHaveLength(3);
    const out = fresh();
    const ids = [...chosen, bare].map((r) => r['id']).join(', ');
    const run = await filesRun(out, ['--where', `id in (${ids})`, '--with', 'thumbnail,surfaces', ...FAST]);
    expect(run.code).toBe(0);
    const links = ['file', 'surface_left_file', 'surface_right_file', 'thumbnail'];
    const expected = [...chosen, bare]
      .sort((a, b) => (a['id'] as number) - (b['id'] as number))
      .flatMap((r) => links.filter((link) => typeof r[link] === 'string').map((link) => ({ record: r, link })));
    const table = await readFilesTable(out);
    expect(table.map((row) => [row['id'], row['link'], row['status']])).toEqual(
      expected.map(({ record, link }) => [record['id'], link, 'ok']),
    );
    for (const { record, link } of expected) {
      const served = await servedBytes(record[link] as string);
      expect(
        (await bytesOf(join(out, landingPath(record, link)))).equals(served),
        `${String(record['id'])} ${link}`,
      ).toBe(true);
    }
    expect((await runCliHere(['files', snap, '--out', fresh(), '--with', 'pictures'])).code).toBe(2);
  });
});

describe('faults end in the right status', () => {
  const pick = (n: number): Rec => records.filter(small)[n]!;
  const only = (r: Rec): string[] => ['--where', `id = ${String(r['id'])}`, ...FAST];

  it('a file of file_size 0 is missing_on_server and never requested', async () => {
    const lost = records.filter((r) => r['file_size'] === 0);
    expect(lost.length).toBeGreaterThan(0);
    const out = fresh();
    const run = await filesRun(out, ['--where', 'file_size = 0', ...FAST]);
    expect(run.code).toBe(0); // no run can fetch them: not a reason to fail (files-lost.test.ts)
    expect(run.log).toEqual([]);
    const table = await readFilesTable(out);
    expect(table.map((row) => [row['id'], row['status'], row['bytes']])).toEqual(
      lost.map((r) => [r['id'], 'missing_on_server', null]).sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
    expect([...(await filesUnder(out)).keys()]).toEqual(['files.parquet']);
  });

  it('a body always cut short is failed, .part kept; cut once, continued by Range, no byte twice', async () => {
    const record = pick(0);
    const always = fresh();
    const cut = await filesRun(always, only(record), () => 'truncate');
    expect(cut.code).toBe(3);
    const [row] = await readFilesTable(always);
    expect(row!['status']).toBe('failed');
    expect(row!['reason']).toContain('truncated');
    const held = (await filesUnder(always)).get(`${landingPath(record)}.part`);
    expect(held).toBe(cut.log.reduce((n, e) => n + e.sent, 0));
    expect(cut.log.slice(1).map((e) => e.range)).toEqual(
      cut.log.slice(0, -1).map((_, i) => `bytes=${cut.log.slice(0, i + 1).reduce((n, e) => n + e.sent, 0)}-`),
    );

    const once = fresh();
    const resumed = await filesRun(once, only(record), (_, nth) => (nth === 1 ? 'truncate' : undefined));
    expect(resumed.code).toBe(0);
    expect(resumed.log.map((e) => [e.status, e.range])).toEqual([
      [200, undefined],
      [206, `bytes=${resumed.log[0]!.sent}-`],
    ]);
    expect(resumed.log[0]!.sent + resumed.log[1]!.sent).toBe(record['file_size']);
    expect((await bytesOf(join(once, landingPath(record)))).equals(await servedBytes(record['file'] as string))).toBe(
      true,
    );
  });

  it('a server that ignores Range has the file fetched whole again, and the result is right', async () => {
    const record = pick(1);
    const out = fresh();
    const run = await filesRun(out, only(record), (_, nth) => (nth === 1 ? 'truncate' : 'ignore-range'));
    expect(run.code).toBe(0);
    expect(run.log.map((e) => [e.status, e.start])).toEqual([
      [200, 0],
      [200, 0],
    ]);
    expect(run.log[1]!.range).toBe(`bytes=${run.log[0]!.sent}-`);
    expect((await bytesOf(join(out, landingPath(record)))).equals(await servedBytes(record['file'] as string))).toBe(
      true,
    );
  });

  it('a file of another length than file_size is size_mismatch and never lands under its name', async () => {
    const record = pick(2);
    const out = fresh();
    const run = await filesRun(out, only(record), () => 'wrong-length');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(3);
    expect(run.log.map((e) => [e.status, e.fault])).toEqual([
      [200, 'wrong-length'],
      [200, 'wrong-length'],
      [200, 'wrong-length'],
    ]); // retried
    const [row] = await readFilesTable(out);
    expect([row!['status'], row!['bytes'], row!['sha256']]).toEqual(['size_mismatch', null, null]);
    expect(row!['reason']).toContain(`file_size ${String(record['file_size'])}`);
    expect([...(await filesUnder(out)).keys()]).toEqual(['files.parquet']);
  });

  it('a byte always changed is corrupt (the gzip CRC says so); changed once, the retry is right', async () => {
    const record = pick(3);
    const always = fresh();
    const bad = await filesRun(always, only(record), () => 'corrupt');
    expect(bad.code).toBe(3);
    const [row] = await readFilesTable(always);
    expect(row!['status']).toBe('corrupt');
    expect(row!['reason']).toMatch(/not a complete gzip stream|NIfTI/);
    expect([...(await filesUnder(always)).keys()]).toEqual(['files.parquet']);

    const once = fresh();
    const good = await filesRun(once, only(record), (_, nth) => (nth === 1 ? 'corrupt' : undefined));
    expect(good.code).toBe(0);
    expect(good.log.map((e) => [e.status, e.range])).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
    expect((await bytesOf(join(once, landingPath(record)))).equals(await servedBytes(record['file'] as string))).toBe(
      true,
    );
  });

  it('a slow server (a bytes-per-second cap per connection) still gives every file, ok', async () => {
    const chosen = records.filter((r) => small(r) && (r['file_size'] as number) < 60_000).slice(0, 3);
    expect(chosen).toHaveLength(3);
    service.setFaults({ fileBytesPerSecond: 200_000 });
    const out = fresh();
    const run = await runCliHere(['files', snap, '--out', out, ...whereIds(chosen), ...FAST]);
    service.setFaults({ fileBytesPerSecond: 0 });
    expect(run.code).toBe(0);
    for (const record of chosen) {
      expect((await bytesOf(join(out, landingPath(record)))).equals(await servedBytes(record['file'] as string))).toBe(
        true,
      );
    }
  });
});

describe('reruns', () => {
  it('skip what files.parquet holds as verified and fetch only the records new since', async () => {
    const out = fresh();
    const where = ['--where', 'file_size > 0', '--where', 'file_size <= 200000'];
    const first = await filesRun(out, [...where, ...FAST]);
    expect(first.code).toBe(0);
    const before = await filesUnder(out);
    const again = await filesRun(out, [...where, ...FAST]);
    expect(again.code).toBe(0);
    expect(again.log).toEqual([]);
    expect(again.stdout).toContain(`${before.size - 1} kept from disk`);

    const local = await startService({ records: 120, seed: 11 });
    try {
      const base = join(root, 'growing');
      const snapOf = async (): Promise<string> => snapshotOf(local, join(base, `snap-${local.dataset.size}`));
      const older = await snapOf();
      const files = join(base, 'files');
      const run1 = await runCliHere(['files', older, '--out', files, ...where, ...FAST]);
      expect(run1.code).toBe(0);
      const { Random } = await import('../../src/service/index.js');
      const added = local.dataset.insert(30, new Random(3));
      const newer = await snapOf();
      local.resetStats();
      const run2 = await runCliHere(['files', newer, '--out', files, ...where, ...FAST]);
      expect(run2.code).toBe(0);
      const fetchedPaths = local.stats.files.log.map((e) => e.path).sort();
      const newRecords = added
        .map((id) => JSON.parse(local.dataset.recordJson(id)) as Rec)
        .filter(fileSizeWithin(1, 200_000));
      expect(newRecords.length).toBeGreaterThan(0);
      expect(fetchedPaths).toEqual(newRecords.map((r) => new URL(r['file'] as string).pathname).sort());
      const table = await readFilesTable(files);
      expect(table.every((row) => row['status'] === 'ok')).toBe(true);
    } finally {
      await local.close();
    }
  });
});

describe('a file img-etl did not write', () => {
  it("at a selected file's path is left as it is, that file failed with the reason, nothing fetched", async () => {
    const out = fresh();
    const chosen = records.filter(small).slice(0, 2);
    const theirs = join(out, landingPath(chosen[0]!));
    await mkdir(dirname(theirs), { recursive: true });
    await writeFile(theirs, 'my own analysis');
    const run = await filesRun(out, [...whereIds(chosen), ...FAST]);
    expect(run.code).toBe(3);
    expect(await readFile(theirs, 'utf8')).toBe('my own analysis');
    expect(run.log.map((e) => e.path)).toEqual([new URL(chosen[1]!['file'] as string).pathname]);
    const rows = await readFilesTable(out);
    expect(rows.map((r) => [r['id'], r['status'], r['reason']])).toEqual([
      [chosen[0]!['id'], 'failed', `files: ${theirs} is a file img-etl did not write; move it to fetch this one`],
      [chosen[1]!['id'], 'ok', null],
    ]);
  });
});
