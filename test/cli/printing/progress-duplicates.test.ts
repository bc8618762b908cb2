/**
 * The progress of a run whose list serves records twice (the bundled service scanning from a random row for every
 * request: `--unstable-order 1`). The bar counts the records the pass's pages held, a record served twice counted
 * twice; those pages sit at distinct offsets below the largest `count` seen, which is the bar's total, so the bar never
 * says more records than that total. Drawn at every event (no least time between redraws): no clock is involved.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Progress } from '../../../src/cli/printing/progress.js';
import type { PassEndEvent } from '../../../src/extract/paging/extract-events.js';
import { runSnapshot } from '../../../src/run/run-snapshot.js';
import type { RunningService } from '../../../src/service/index.js';
import { startFixtureService } from '../../helpers/fixture-service.js';
import { removeDir, tempDir } from '../../helpers/readers.js';

let out: string;
let service: RunningService;
beforeEach(async () => {
  out = await tempDir();
  service = await startFixtureService({ records: 60, seed: 3, faults: { unstableOrderRate: 1, faultSeed: 2 } });
});
afterEach(async () => {
  await service.close();
  await removeDir(out);
});

it('with records served twice, the bar never counts more records than its total', async () => {
  const chunks: string[] = [];
  const stream = { isTTY: true, columns: 200, write: (s: string) => chunks.push(s) > 0 } as NodeJS.WriteStream;
  const progress = new Progress(stream, false, { redrawEveryMs: 0 });
  const ends: PassEndEvent[] = [];
  await runSnapshot({
    baseUrl: service.url,
    outDir: out,
    pageSize: 10,
    formats: ['csv'],
    onEvent: (event) => {
      if (event.type === 'pass-end') ends.push(event);
      progress.onEvent(event);
    },
  });
  progress.finish();
  expect(ends[0]!.duplicates).toBeGreaterThan(0); // the list did serve records twice
  const counts = [...chunks.join('').matchAll(/ ([\d,]+)\/([\d,]+) records/g)].map((m) =>
    [m[1]!, m[2]!].map((n) => Number(n.replace(/,/g, ''))),
  );
  expect(counts.length).toBeGreaterThan(10);
  for (const [records, total] of counts) expect(records).toBeLessThanOrEqual(total!);
});
