/**
 * A user's own sink (rowSink) on a library run, in process against the bundled service over loopback HTTP: what the
 * run does when the sink does not read its rows to the end.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  definePipeline,
  filterRows,
  rowSink,
  runPipeline,
  startService,
  toCsv,
  type Pipeline,
} from '../../src/index.js';
import type { RunningService } from '../../src/service/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';

let service: RunningService;
let dir: string;
beforeAll(async () => {
  // more records than one batch of the write (1,000 rows): a sink that stops reading stops mid-stream
  service = await startService({ records: 2500, seed: 31 });
  dir = await tempDir();
});
afterAll(async () => {
  await service?.close();
  await removeDir(dir);
});

const withSink = (name: string, sink: Pipeline['sinks']): Pipeline =>
  definePipeline({ name, description: 'every image, and a sink of its own', sinks: sink });

/** Runs `pipeline` into a folder of its own; resolves to the error it failed with and what that folder holds. */
async function failure(pipeline: Pipeline): Promise<{ error: Error; files: string[] }> {
  const outDir = join(dir, pipeline.name);
  const error = await runPipeline(pipeline, { baseUrl: service.url, outDir, pageSize: 500 }).then(
    () => new Error('the run succeeded'),
    (e: unknown) => e as Error,
  );
  return { error, files: existsSync(outDir) ? (await readdir(outDir)).sort() : [] };
}

describe('a sink that does not read its rows to the end', () => {
  it('that never reads them fails the run in one line naming the sink, and publishes nothing', async () => {
    const { error, files } = await failure(withSink('lazy', [rowSink(() => Promise.resolve(undefined))]));
    expect(error.message).toBe(
      "load: a sink (rowSink) resolved before reading the run's rows to the end (it read 0 batches): " +
        'a sink reads every batch, or the run cannot write its files',
    );
    expect(files).toEqual(['.img-etl-staging']); // kept for the next attempt; nothing half-published
  });

  it('that throws before reading them fails the run in one line naming the sink, and publishes nothing', async () => {
    const failing = rowSink(() => Promise.reject(new Error('the sink cannot open its database')));
    const { error, files } = await failure(withSink('throws-first', [failing]));
    expect(error.message).toBe('load: a sink (rowSink) failed: the sink cannot open its database');
    expect(files).toEqual(['.img-etl-staging']);
    const named = rowSink(async function tmapsDatabase(rows) {
      for await (const _ of rows) throw new Error('disk full');
    });
    expect((await failure(withSink('throws-named', [named]))).error.message).toBe(
      'load: a sink (rowSink tmapsDatabase) failed: disk full',
    );
  });

  it("the run's own error, which reaches a sink through its rows, fails the run as it is", async () => {
    const breaking: Pipeline['stages'] = [
      // eslint-disable-next-line require-yield -- it fails at its first batch
      async function* breaking(batches) {
        for await (const _ of batches) throw new Error('the stage broke');
      },
    ];
    const reading = rowSink(async (rows) => {
      for await (const _ of rows);
    });
    const pipeline = definePipeline({ ...withSink('run-fails', [reading]), stages: breaking });
    expect((await failure(pipeline)).error.message).toBe('load: stage 1 (breaking) failed: the stage broke');
  });

  it('that stops part-way fails the run in the same line, not a tee of the writers', async () => {
    const stopping = rowSink(async (rows) => {
      for await (const _ of rows) break;
    });
    const { error, files } = await failure(withSink('stopping', [stopping]));
    expect(error.message).toBe(
      "load: a sink (rowSink) resolved before reading the run's rows to the end (it read 1 batch): " +
        'a sink reads every batch, or the run cannot write its files',
    );
    expect(files).toEqual(['.img-etl-staging']);
  });
});

describe('two sinks that resolve to one file of run.pending', () => {
  it('are refused in one line before anything is published, not listed twice in the manifest', async () => {
    // each writes its own rows under one name: the second file replaces the first, whose manifest entry would be false
    const csvOf = (keep: (row: Record<string, unknown>) => boolean) =>
      rowSink((rows, run) => toCsv(filterRows(keep)(rows), { path: join(run.pending, 'maps.csv'), table: run.table }));
    const sinks = [csvOf((row) => row['map_type'] === 'T map'), csvOf((row) => row['map_type'] === 'Z map')];
    const { error, files } = await failure(withSink('twice', sinks));
    expect(error.message).toBe(
      `load: ${join(dir, 'twice', '.img-etl-publish', 'maps.csv')} is resolved to twice (by two sinks, or twice by ` +
        'one): each file of a run is published once (give each sink its own file)',
    );
    expect(files).toEqual(['.img-etl-staging']);
  });
});
