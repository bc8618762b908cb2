/**
 * A library pipeline (no file to hash) is named by a digest of its definition: a changed derived column's function or
 * a changed filter's predicate is another pipeline, which never resumes the staging of the first but discards it
 * (docs/library.md).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  definePipeline,
  derivedColumn,
  filterRows,
  int64,
  rowSink,
  runPipeline,
  startService,
  type Pipeline,
  type RunningService,
} from '../../src/index.js';
import { pipelineRunOptions } from '../../src/run/pipeline-run-options.js';
import { removeDir, tempDir } from '../helpers/readers.js';

let service: RunningService;
let out: string;
beforeAll(async () => {
  service = await startService({ records: 300, seed: 7 });
  out = await tempDir();
});
afterAll(async () => {
  await service?.close();
  await removeDir(out);
});

/** Tags of two definitions: source texts that differ (the digest reads a function's text, not what it captures). */
const TAGS = { 1: () => 1, 2: () => 2 } as const;

const withValue = (value: 1 | 2, sink: Pipeline['sinks']): Pipeline =>
  definePipeline({
    name: 'tagged',
    description: 'every image, tagged',
    columns: [derivedColumn('tag', int64, 'a constant', TAGS[value])],
    sinks: sink,
  });

describe("a library pipeline's identity", () => {
  it('differs when only a derived column function or a filter predicate differs', () => {
    const sha = (p: Pipeline) => pipelineRunOptions(p).pipeline.sha256;
    expect(sha(withValue(1, []))).not.toBe(sha(withValue(2, [])));
    const keeping = (keep: Parameters<typeof filterRows>[0]) =>
      definePipeline({ name: 'kept', description: 'some images', stages: [filterRows(keep)] });
    expect(sha(keeping((row) => row['image_type'] === 'atlas'))).not.toBe(
      sha(keeping((row) => row['image_type'] !== 'atlas')),
    );
  });

  it("a run after the derived column changed does not resume the earlier definition's staging", async () => {
    const outDir = join(out, 'tagged');
    const failing = rowSink(async (rows) => {
      for await (const _ of rows) throw new Error('the sink fails');
    });
    await expect(runPipeline(withValue(1, [failing]), { baseUrl: service.url, outDir })).rejects.toThrow(
      'the sink fails',
    );
    const tags = new Set<string>();
    const collecting = rowSink(async (rows) => {
      for await (const batch of rows) for (const row of batch.rows) tags.add(String(row['tag']));
    });
    // the changed pipeline discards the staging of the other, which no run can finish now, and starts afresh
    const notices: string[] = [];
    const onEvent = (event: { type: string; message?: string }) => {
      if (event.type === 'staging') notices.push(event.message!);
    };
    await runPipeline(withValue(2, [collecting]), { baseUrl: service.url, outDir, onEvent });
    expect(notices).toEqual([
      `staging: ${join(outDir, '.img-etl-staging')} holds an unfinished run of pipeline tagged as its file was then, ` +
        'which no run of the file as it is now can finish; discarded it and started afresh',
    ]);
    expect([...tags]).toEqual(['2']);
  });
});
