/**
 * A file img-etl reads that a user, another program or a killed run left in place as a FIFO (whose open waits for a
 * writer for ever): the lock and the verified-files ledger of a files run, a pipeline module, the manifest of a
 * snapshot reported or built on. No run waits on one: it stops in one line naming the path and the reason, or goes on
 * as it would without the file, as that reader does for a file that is not there. Real CLI in a child process, with a
 * time limit: a run that waited would be killed, and fail the test.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../../src/service/index.js';
import { fileSizeWithin, startSnapshottedService, whereIds } from '../../helpers/files-run.js';
import { removeDir } from '../../helpers/readers.js';
import { runCli } from '../../helpers/run-cli.js';

let service: RunningService;
let root: string;
let snap: string;
let where: string[];
beforeAll(async () => {
  let records: Record<string, unknown>[];
  ({ service, root, snap, records } = await startSnapshottedService({ records: 60, seed: 42 }));
  where = whereIds(records.filter(fileSizeWithin(1, 100_000)).slice(0, 2));
});
afterAll(async () => {
  await service?.close();
  await removeDir(root);
});

const mkfifo = (path: string) => execFileSync('mkfifo', [path]);
/** The CLI, killed after 30 s: a run that waits on a FIFO never ends on its own. */
const run = (args: string[]) => runCli(args, { timeoutMs: 30_000, killSignal: 'SIGKILL' });

describe('a FIFO where img-etl reads a file is never waited on', () => {
  it("in place of a files run's lock: one line naming it and why, exit 1", async () => {
    const out = join(root, 'locked');
    await mkdir(out);
    mkfifo(join(out, '.img-etl-files.lock'));
    const files = await run(['files', snap, '--out', out, ...where, '--quiet']);
    const lock = join(out, '.img-etl-files.lock');
    expect([files.code, files.stderr]).toEqual([1, `img-etl: ${lock} is not a regular file (a FIFO)\n`]);
  });

  it("in place of a files run's ledger of verified files: none is read, the files are fetched, exit 0", async () => {
    const out = join(root, 'ledger');
    await mkdir(out);
    mkfifo(join(out, '.img-etl-files.verified.ndjson'));
    const files = await run(['files', snap, '--out', out, ...where, '--quiet']);
    expect([files.code, files.stderr]).toEqual([0, '']);
    expect(await readdir(out)).toContain('files.parquet');
  });

  it('in place of a pipeline module: a usage error naming it and why, exit 2', async () => {
    const module = join(root, 'pipeline.mjs');
    mkfifo(module);
    const pipeline = await run(['run', module, '--base-url', service.url, '--out', join(root, 'p')]);
    expect([pipeline.code, pipeline.stderr]).toEqual([2, `img-etl: run: ${module} is not a regular file (a FIFO)\n`]);
  });

  it("in place of a reported snapshot's manifest: the report is made without it, exit 0", async () => {
    const folder = join(root, 'unlisted');
    await mkdir(folder);
    execFileSync('cp', [join(snap, 'images.parquet'), folder]);
    mkfifo(join(folder, 'manifest.json'));
    const report = await run(['report', folder, '--out', join(root, 'report.html')]);
    expect([report.code, report.stderr]).toEqual([0, '']);
  });

  it("in place of the base snapshot's manifest: the run makes a full pass and says why, exit 0", async () => {
    const out = join(root, 'based');
    const args = ['--snapshot', '--base-url', service.url, '--out', out, '--quiet'];
    expect((await run(args)).code).toBe(0);
    const base = join(
      out,
      (await readdir(out)).find((name) => /^\d{8}T/.test(name))!,
    );
    execFileSync('rm', [join(base, 'manifest.json')]);
    mkfifo(join(base, 'manifest.json'));
    const again = await run(args.slice(0, -1)); // not --quiet: the line saying why is the point
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`a full pass: ${base} has no img-etl manifest to read`);
  });
});
