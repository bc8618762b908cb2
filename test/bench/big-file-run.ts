/**
 * One 1 GB image file fetched by `img-etl files`: memory must not follow a file's size, since its bytes go to disk as
 * they arrive and are checked by streaming (test/files/files-streaming.e2e.test.ts checks the first without a clock).
 * The service runs in this process and generates the file's padding as it sends it; only the run's peak RSS is
 * measured here, not its time. Every run is checked: exit 0, files.parquet says ok with 10^9 bytes, and the sha256 is
 * that of the bytes served.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { NODE_FLAGS, startService } from 'img-etl';
import type { BenchContext } from './measure-rounds.js';
import { measureNode, type Measurement } from './measure.js';
import { sqlString } from './sql-string.js';

/** The file's size. */
export const BIG_FILE_BYTES = 1_000_000_000;

/** One measured run and what is wrong with it. */
export interface BigFileRun {
  measurement: Measurement;
  problems: string[];
}

/** Fetches the 1 GB file `ctx.options.repeat` times with the CLI `cli` (pinned as the other clients are). */
export async function bigFileRuns(ctx: BenchContext, cli: string): Promise<BigFileRun[]> {
  // A generated record as data (its links on NeuroVault's origin, which the service serving it puts its own in for).
  const one = await startService({ records: 1, seed: ctx.options.seed });
  const [id] = one.dataset.ids();
  const generated = JSON.parse(one.dataset.recordJson(id!, 'http://neurovault.org')) as Record<string, unknown>;
  await one.close();
  const service = await startService({
    data: [JSON.stringify({ ...generated, file_size: BIG_FILE_BYTES })],
    records: 0,
  });
  const [record] = service.servedRecords();
  const dir = await mkdtemp(join(tmpdir(), 'img-etl-bench-big-file-'));
  try {
    const snap = join(dir, 'snap');
    const snapshot = await measureNode(cli, ['--base-url', service.url, '--out', snap, '--quiet'], ctx.options.rusage);
    if (snapshot.exitCode !== 0) throw new Error(`bench: big file: the snapshot exited ${snapshot.exitCode}`);
    const served = await sha256Of((await fetch(String(record!['file']))).body as AsyncIterable<Uint8Array>);
    const runs: BigFileRun[] = [];
    for (let k = 0; k < ctx.options.repeat; k++) {
      const out = join(dir, `files-${k}`);
      const args = ['files', snap, '--out', out, '--quiet'];
      const measurement = await measureNode(cli, args, ctx.options.rusage, ctx.pinning?.clientCpu, NODE_FLAGS);
      runs.push({ measurement, problems: await check(measurement, out, served) });
      ctx.log(`files: 1 GB file, run ${k + 1}: peak RSS ${(measurement.maxRssBytes / 1e6).toFixed(0)} MB`);
      await rm(out, { recursive: true, force: true });
    }
    return runs;
  } finally {
    await service.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** What is wrong with a run: its exit code, files.parquet's row, or the file's bytes. */
async function check(measurement: Measurement, out: string, served: string): Promise<string[]> {
  const problems: string[] = [];
  if (measurement.exitCode !== 0)
    problems.push(`exit code ${measurement.exitCode}: ${measurement.stderr.trim().split('\n').at(-1) ?? ''}`);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const sql = `SELECT status, bytes::DOUBLE AS bytes, sha256, path
      FROM read_parquet(${sqlString(join(out, 'files.parquet'))})`;
    const rows = (await connection.runAndReadAll(sql)).getRowObjectsJS();
    const [row] = rows as { status: string; bytes: number; sha256: string; path: string }[];
    if (rows.length !== 1 || row!.status !== 'ok' || row!.bytes !== BIG_FILE_BYTES)
      problems.push(`files.parquet says ${JSON.stringify(rows)}, one ok row of ${BIG_FILE_BYTES} bytes expected`);
    else if (row!.sha256 !== served) problems.push(`files.parquet's sha256 is not that of the bytes served`);
    else if ((await sha256Of(createReadStream(join(out, row!.path)))) !== served)
      problems.push('the file on disk is not the bytes served');
  } catch (err) {
    problems.push(`files.parquet does not read: ${(err as Error).message}`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return problems;
}

async function sha256Of(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk);
  return hash.digest('hex');
}
