/**
 * What `img-etl diff` leaves in `--out` and says when things go wrong: snapshot folders made in process by runSnapshot
 * from the bundled service over loopback HTTP (or data files built with apache-arrow), diffed by the real CLI.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFile, cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Table, tableFromArrays, tableFromIPC, tableToIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSnapshot } from '../../src/index.js';
import { startService } from '../../src/service/index.js';
import { fixtureLines } from '../helpers/fixture-service.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { missingTools, VENV_PYTHON } from '../helpers/test-tools.js';
import { cliArgv, runCli, runCliHere } from '../helpers/run-cli.js';

let dir: string;
/** A complete snapshot of the fixture records, in Parquet and Arrow. */
let complete: string;
/** A snapshot of the same service where 1 record breaks the schema and some are counted but never served. */
let incomplete: string;
let missing: number;

beforeAll(async () => {
  dir = await tempDir();
  const lines = fixtureLines();
  const service = await startService({ data: lines });
  try {
    complete = join(dir, 'complete');
    await runSnapshot({ baseUrl: service.url, outDir: complete, formats: ['parquet', 'arrow'] });
  } finally {
    await service.close();
  }
  const broken = JSON.parse(lines[3]!) as Record<string, unknown>;
  broken['file_size'] = 'large'; // not an integer: a reject
  const served = lines.map((line, i) => (i === 3 ? JSON.stringify(broken) : line));
  const orphans = await startService({ data: served, faults: { orphanRate: 0.1, faultSeed: 3 } });
  try {
    incomplete = join(dir, 'incomplete');
    const { manifest } = await runSnapshot({ baseUrl: orphans.url, outDir: incomplete, formats: ['parquet'] });
    missing = manifest.missing;
    expect([manifest.complete, manifest.rejects, missing > 0]).toEqual([false, 1, true]);
  } finally {
    await orphans.close();
  }
}, 60_000);

afterAll(async () => {
  await removeDir(dir);
});

describe('img-etl diff, what it says', () => {
  it('says that an incomplete snapshot lacks records and rejected some, which read as removed', async () => {
    const run = await runCliHere(['diff', complete, incomplete, '--out', join(dir, 'incomplete-diff')]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const removed = Number(/(\d+) removed/.exec(run.stdout)![1]);
    expect(removed).toBe(missing + 1);
    const why = `${join(incomplete, 'manifest.json')} gives ${missing} records missing (incomplete), 1 rejected`;
    expect(run.stdout).toContain(`  new       ${why}: where the old snapshot has them, they read as removed\n`);
    expect(run.stdout).not.toContain('  old       ' + join(complete, 'manifest.json'));
  });

  it('says that an Arrow IPC file it cannot parse is damaged, not what apache-arrow tripped on alone', async () => {
    const cut = join(dir, 'cut.arrow'); // no manifest beside it: nothing checks it before it is read
    const bytes = await readFile(join(complete, 'images.arrow'));
    bytes.writeInt32LE(bytes.readInt32LE(bytes.length - 10) + 24, bytes.length - 10); // its footer's length, wrong
    await writeFile(cut, bytes);
    const run = await runCliHere(['diff', cut, complete, '--out', join(dir, 'cut-diff')]);
    expect([run.code, run.stdout]).toEqual([1, '']);
    const why = /apache-arrow failed on its bytes \((TypeError|RangeError): [^\n]+\): the file is damaged or cut short/;
    expect(run.stderr).toMatch(new RegExp(`^img-etl: diff: cannot read ${cut}: ${why.source}\n$`));
  });
});

describe('img-etl diff of an Arrow IPC file named directly and cut short', () => {
  /** The complete snapshot's images as an Arrow IPC stream of two record batches, and where its second one starts. */
  async function twoBatchStream(): Promise<{ bytes: Uint8Array; boundary: number }> {
    const images = tableFromIPC(await readFile(join(complete, 'images.arrow')));
    const [first, second] = [images.slice(0, 20), images.slice(20)];
    const bytes = tableToIPC(new Table([...first.batches, ...second.batches]), 'stream');
    const head = tableToIPC(first, 'stream');
    const boundary = head.length - 8; // without the end-of-stream marker of the first batch's own stream
    expect(Buffer.from(bytes.subarray(0, boundary)).equals(Buffer.from(head.subarray(0, boundary)))).toBe(true);
    return { bytes, boundary };
  }

  /** diff of `bytes` written to `name` against the complete snapshot. */
  async function diffAgainstComplete(name: string, bytes: Uint8Array) {
    const file = join(dir, name);
    await writeFile(file, bytes);
    return { file, run: await runCliHere(['diff', file, complete, '--out', join(dir, `${name}-diff`)]) };
  }

  it('reads a whole stream (it ends with its end-of-stream marker) as the snapshot it holds', async () => {
    const { bytes } = await twoBatchStream();
    const { run } = await diffAgainstComplete('whole.arrows', bytes);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain('0 added, 0 removed, 0 changed, 59 unchanged');
  });

  it('refuses a stream cut at a message boundary: it lacks its end-of-stream marker', async () => {
    const { bytes, boundary } = await twoBatchStream();
    const { file, run } = await diffAgainstComplete('boundary.arrows', bytes.subarray(0, boundary));
    expect([run.code, run.stdout]).toEqual([1, '']);
    expect(run.stderr).toBe(
      `img-etl: diff: cannot read ${file}: the Arrow IPC stream ends without its end-of-stream marker: ` +
        'it is cut short (Arrow writers end a stream with one)\n',
    );
  });

  it('refuses a stream cut within a message', async () => {
    const { bytes, boundary } = await twoBatchStream();
    for (const at of [boundary + 4, boundary + 12, bytes.length - 20]) {
      const { file, run } = await diffAgainstComplete(`inside-${at}.arrows`, bytes.subarray(0, at));
      expect([run.code, run.stdout]).toEqual([1, '']);
      expect(run.stderr).toMatch(
        new RegExp(`^img-etl: diff: cannot read ${file}: the Arrow IPC stream is cut short within a message \\(`),
      );
      expect(run.stderr.split('\n')).toHaveLength(2);
    }
  });

  it('refuses two streams one after the other (cat a.arrows b.arrows), not the first read as the whole', async () => {
    const images = tableFromIPC(await readFile(join(complete, 'images.arrow')));
    const [first, second] = [tableToIPC(images.slice(0, 20), 'stream'), tableToIPC(images.slice(20), 'stream')];
    const { file, run } = await diffAgainstComplete('two.arrows', Buffer.concat([first, second]));
    expect([run.code, run.stdout]).toEqual([1, '']);
    expect(run.stderr).toBe(
      `img-etl: diff: cannot read ${file}: the Arrow IPC stream goes on after its end-of-stream marker ` +
        `(at byte ${first.length - 8}, ${second.length} bytes follow it): a second stream or other bytes, ` +
        'which would not be read (one stream is read whole, not two)\n',
    );
  });

  it('refuses a file-format file cut short, its footer lost', async () => {
    const bytes = await readFile(join(complete, 'images.arrow'));
    for (const at of [bytes.length - 4, bytes.length - 100]) {
      const { file, run } = await diffAgainstComplete(`cut-${at}.arrow`, bytes.subarray(0, at));
      expect([run.code, run.stdout]).toEqual([1, '']);
      expect(run.stderr).toBe(
        `img-etl: diff: cannot read ${file}: the Arrow IPC file does not end with its footer and ARROW1: ` +
          'it is cut short\n',
      );
    }
  });
});

describe('img-etl diff of an Arrow IPC file-format file named directly: one file, its footer its own', () => {
  /** diff of `bytes` written to `name` against the complete snapshot. */
  async function diffAgainstComplete(name: string, bytes: Uint8Array) {
    const file = join(dir, name);
    await writeFile(file, bytes);
    return { file, run: await runCliHere(['diff', file, complete, '--out', join(dir, `${name}-diff`)]) };
  }

  it('refuses two files in one (cat a.arrow b.arrow): its second footer points into the first', async () => {
    const whole = await readFile(join(complete, 'images.arrow'));
    const images = tableFromIPC(whole);
    const [first, second] = [tableToIPC(images.slice(0, 20), 'file'), tableToIPC(images.slice(20), 'file')];
    for (const [name, a, b] of [
      ['split', first, second],
      ['twice', whole, whole],
    ] as const) {
      const { file, run } = await diffAgainstComplete(`${name}.arrow`, Buffer.concat([a, b]));
      expect([run.code, run.stdout]).toEqual([1, '']);
      expect(run.stderr).toMatch(
        new RegExp(
          `^img-etl: diff: cannot read ${file}: the Arrow IPC file is not one whole file: [^\n]+: two files one ` +
            'after the other \\(cat a\\.arrow b\\.arrow\\) or other bytes, which would be read wrong ' +
            '\\(one file is read whole, not two\\)\n$',
        ),
      );
    }
  });

  it('reads the files of Arrow writers whole: ours, apache-arrow, pyarrow, polars', async (ctx) => {
    const images = tableFromIPC(await readFile(join(complete, 'images.arrow')));
    const batches = new Table([...images.slice(0, 20).batches, ...images.slice(20).batches]);
    const ours = await diffAgainstComplete('ours.arrow', await readFile(join(complete, 'images.arrow')));
    const apache = await diffAgainstComplete('apache.arrow', tableToIPC(batches, 'file'));
    for (const { run } of [ours, apache]) {
      expect([run.code, run.stderr]).toEqual([0, '']);
      expect(run.stdout).toContain('0 added, 0 removed, 0 changed, 59 unchanged');
    }
    const missing = missingTools(['venv']);
    if (missing !== undefined) ctx.skip(missing);
    const source = join(complete, 'images.arrow');
    const write = [
      'import sys, pyarrow.ipc as ipc, polars as pl',
      'table = ipc.open_file(sys.argv[1]).read_all()',
      'with ipc.new_file(sys.argv[2], table.schema) as w: w.write_table(table, max_chunksize=20)',
      'legacy = ipc.IpcWriteOptions(use_legacy_format=True)  # the prefix of Arrow before 0.15',
      'with ipc.new_file(sys.argv[4], table.schema, options=legacy) as w: w.write_table(table, max_chunksize=20)',
      'pl.read_ipc(sys.argv[1]).write_ipc(sys.argv[3], compat_level=pl.CompatLevel.oldest())',
    ].join('\n');
    const files = ['pyarrow', 'polars', 'pyarrow-legacy'].map((name) => join(dir, `${name}.arrow`));
    execFileSync(VENV_PYTHON, ['-c', write, source, ...files]);
    for (const file of files) {
      const run = await runCliHere(['diff', file, complete, '--out', `${file}-diff`]);
      expect([run.code, run.stderr]).toEqual([0, '']);
      expect(run.stdout).toMatch(/0 added, 0 removed, \d+ changed, \d+ unchanged/); // all 59 rows read
    }
  });
});

describe('img-etl diff, its command line', () => {
  it('takes one value after --to, so that the snapshots may follow it', async () => {
    const out = join(dir, 'to-first');
    const run = await runCliHere(['diff', '--to', 'csv', complete, complete, '--out', out]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(await readdir(out)).toEqual(['collections-diff.csv', 'diff.csv']);
  });
});

describe('img-etl diff, what it leaves in --out', () => {
  it('publishes neither table when the collections fail after the images were diffed', async () => {
    const out = join(dir, 'mixed-out');
    expect((await runCliHere(['diff', complete, complete, '--out', out])).code).toBe(0);
    const before = { images: await readFile(join(out, 'diff.parquet')), names: await readdir(out) };
    // A folder without a manifest: its collections hold every id twice, which only reading them finds.
    const doubled = join(dir, 'doubled');
    await mkdir(doubled);
    await copyFile(join(incomplete, 'images.parquet'), join(doubled, 'images.parquet'));
    const collections = tableFromIPC(await readFile(join(complete, 'collections.arrow')));
    await writeFile(join(doubled, 'collections.arrow'), tableToIPC(collections.concat(collections), 'file'));
    const run = await runCliHere(['diff', doubled, complete, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^img-etl: diff: .*collections\.arrow is not in ascending id order: .*\n$/);
    expect(await readdir(out)).toEqual(before.names);
    expect((await readFile(join(out, 'diff.parquet'))).equals(before.images)).toBe(true);
  });

  it('writes by default into output/diff, never into the snapshot a run wrote to output', async () => {
    const cwd = join(dir, 'newcomer');
    await cp(complete, join(cwd, 'output'), { recursive: true }); // what `img-etl` writes by default
    const before = await readdir(join(cwd, 'output'));
    const run = await runCli(['diff', 'output', 'output'], { cwd });
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(await readdir(join(cwd, 'output'))).toEqual([...before, 'diff'].sort());
    expect(await readdir(join(cwd, 'output', 'diff'))).toEqual(['collections-diff.parquet', 'diff.parquet']);
  });

  it('refuses an --out that holds a snapshot or --snapshot folders, in one line, writing nothing', async () => {
    const service = await startService({ data: fixtureLines() });
    const snapshots = join(dir, 'snapshots');
    try {
      expect((await runCliHere(['--base-url', service.url, '--out', snapshots, '--snapshot', '--quiet'])).code).toBe(0);
    } finally {
      await service.close();
    }
    for (const [out, why] of [
      [complete, "is a snapshot folder, which holds one run's files"],
      [join(snapshots, 'latest'), "is a snapshot folder, which holds one run's files"],
      [snapshots, 'is a --snapshot folder, which holds snapshot folders and their latest'],
    ] as const) {
      const before = await readdir(out);
      const run = await runCliHere(['diff', complete, complete, '--out', out]);
      expect([run.code, run.stdout]).toEqual([2, '']);
      expect(run.stderr).toBe(`img-etl: --out: ${out} ${why}; give the diff a folder of its own\n`);
      expect(await readdir(out)).toEqual(before);
    }
  });

  it('stops on SIGTERM with exit code 130 and one line, leaving no file in --out', async () => {
    // Every row of the old file is removed in the new one: seconds of entries to write.
    const rows = 2_000_000;
    const old = join(dir, 'many.arrow');
    const ids = BigInt64Array.from({ length: rows }, (_, i) => BigInt(i));
    await writeFile(old, tableToIPC(tableFromArrays({ id: ids }), 'file'));
    const now = join(dir, 'one.arrow');
    await writeFile(now, tableToIPC(tableFromArrays({ id: new BigInt64Array([-1n]) }), 'file'));
    const out = join(dir, 'interrupted');
    const child = spawn(process.execPath, cliArgv(['diff', old, now, '--out', out, '--to', 'parquet,csv']));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const ended = new Promise<[number | null, string | null]>((resolve) =>
      child.on('exit', (code, signal) => resolve([code, signal])),
    );
    // Once the files are being written (their temporary names appear), the diff is under way.
    for (let i = 0; i < 5000 && child.exitCode === null; i++) {
      if ((await readdir(out).catch(() => [])).length > 0) break;
      await sleep(5);
    }
    child.kill('SIGTERM');
    expect(await ended).toEqual([130, null]);
    expect(stderr).toBe('img-etl: diff: interrupted; nothing was written\n');
    expect(await readdir(out)).toEqual([]);
  });
});
