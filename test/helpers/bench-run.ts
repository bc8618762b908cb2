/** A measured run as the bench's scenarios record one, for the unit tests of how targets are judged. */
import type { RunKind, RunResult } from '../bench/bench-runs.js';

/** What the service counted: nothing (the targets under test look at wall times only). */
const NO_SERVER_COUNTS = {
  requests: 0,
  listRequests: 0,
  byStatus: {},
  pagesServed: 0,
  recordsServed: 0,
  imageRecordsServed: 0,
  workers: { peakActive: 0, peakQueued: 0 },
};

/** A correct run of `kind` that took `wallSeconds`: pinned to core 1 unless `pinned` is false, 1,000 records. */
export function benchRun(
  kind: RunKind,
  wallSeconds: number,
  {
    pinned = true,
    problems = [],
    imageRecordsServed = 0,
  }: { pinned?: boolean; problems?: string[]; imageRecordsServed?: number } = {},
): RunResult {
  const server = { ...NO_SERVER_COUNTS, imageRecordsServed };
  const usage = { maxRssBytes: 1e8, cpuSeconds: 1, exitCode: 0, server, serverCostMs: 0 };
  return { run: kind, cpu: pinned ? 1 : undefined, records: 1000, wallSeconds, ...usage, problems };
}
