/**
 * Unstable order: a list whose scan starts at a random row on every request, with records inserted and deleted while
 * it is paged (the real /api/images/ has no ORDER BY). img-etl must end complete (exit 0) after one pass over the
 * images, the collections list and the own lists of the collections that came up short; it reports what that cost
 * in requests per endpoint and per record, and in time.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchService, type LoadModel } from './bench-service.js';
import type { BenchContext } from './measure-rounds.js';
import { count, pinNotes, type ScenarioResult } from './scenario-result.js';
import type { TargetResult } from './target-result.js';

/** The limit: requests to the image and collections lists over those of one pass over each, under drift. */
export const UNSTABLE_REQUESTS = 1.5;
/** img-etl's page size here: small enough that a pass has tens of pages for the scan to shuffle. */
const PAGE_SIZE = 100;
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

/** What one run cost and gave. */
interface UnstableRun {
  code: number;
  seconds: number;
  requests: { images: number; collections: number; collection_images: number; image: number };
  written: number;
  complete: boolean;
  /** Pages of one pass over the images and over the collections list, at the end of the run. */
  onePass: number;
}

/** Runs img-etl `repeat` times against a service whose list rotates on every request, with inserts and deletes. */
export async function unstableScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const o = ctx.options;
  const faults = {
    ...{ unstableOrderRate: 1, unstableOrderMode: 'rotate', insertRate: 0.2, insertCount: 2, deleteRate: 0.2 },
    ...{ deleteCount: 2, faultSeed: o.seed },
  };
  const load: LoadModel = {
    records: o.unstableRecords,
    seed: o.seed,
    workers: 4,
    pageLatencyMs: 20,
    recordLatencyMs: 0,
    faults,
  };
  const runs: UnstableRun[] = [];
  let serviceCpus = '';
  for (let round = 0; round < o.repeat; round++) {
    // A fresh service each round: the inserts and deletes of one run do not carry into the next.
    const service = await BenchService.start(load, ctx.pinning?.serviceCpu);
    serviceCpus = service.cpus;
    try {
      runs.push(await runOnce(service, o.concurrency));
      ctx.log(`unstable: round ${round + 1}: exit ${runs.at(-1)!.code} in ${runs.at(-1)!.seconds.toFixed(2)} s`);
    } finally {
      await service.close();
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
  const ratio = median(runs.map((r) => (r.requests.images + r.requests.collections) / r.onePass));
  const perRecord = median(runs.map((r) => total(r) / Math.max(1, r.written)));
  const seconds = median(runs.map((r) => r.seconds));
  const complete = runs.filter((r) => r.code === 0 && r.complete).length;
  const description =
    `Unstable order, ${count(load.records)} records at ${PAGE_SIZE} a page, ` +
    'scan rotated on every request, inserts and deletes';
  // No run groups stand behind these targets (the runs are not the other scenarios' format runs): judged here.
  const targets: TargetResult[] = [
    {
      id: 'unstable-complete',
      scenario: 'unstable',
      description: `${description}: runs complete with exit 0`,
      measured: complete,
      shown: `${complete} of ${runs.length}`,
      limit: `${runs.length} of ${runs.length}`,
      pass: complete === runs.length,
      problems: [],
    },
    {
      id: 'unstable-requests',
      scenario: 'unstable',
      description: `${description}: image and collections list requests / one pass over each`,
      measured: ratio,
      shown: `${ratio.toFixed(2)}x`,
      limit: `≤ ${UNSTABLE_REQUESTS.toFixed(2)}x`,
      pass: ratio <= UNSTABLE_REQUESTS,
      problems: [],
    },
  ];
  const last = runs.at(-1)!;
  const notes = [
    ...pinNotes(ctx, serviceCpus),
    `requests of the last run: ${total(last)} (${last.requests.images} images, ` +
      `${last.requests.collections} collections, ${last.requests.collection_images} collection_images, ` +
      `${last.requests.image} image) for ${count(last.written)} records; ` +
      `median ${perRecord.toFixed(4)} requests per record, ${seconds.toFixed(2)} s`,
  ];
  const details = { runs, requestsPerRecord: perRecord, seconds };
  return { name: 'unstable', load, groups: [], targets, notes, details };
}

function total(run: UnstableRun): number {
  const r = run.requests;
  return r.images + r.collections + r.collection_images + r.image;
}

/** One run of img-etl to Parquet in a fresh folder, timed; its manifest says what it cost. */
async function runOnce(service: BenchService, concurrency: number): Promise<UnstableRun> {
  const out = await mkdtemp(join(tmpdir(), 'img-etl-bench-unstable-'));
  try {
    const args = [
      CLI,
      '--base-url',
      service.url,
      '--out',
      out,
      '--page-size',
      String(PAGE_SIZE),
      '--concurrency',
      String(concurrency),
      '--quiet',
    ];
    const started = performance.now();
    const code = await new Promise<number>((resolve) => {
      execFile(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }, (error) =>
        resolve(error === null ? 0 : typeof error.code === 'number' ? error.code : 1),
      );
    });
    const seconds = (performance.now() - started) / 1000;
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as {
      requests: UnstableRun['requests'];
      records_written: number;
      complete: boolean;
      expected: number;
      completeness: { collections: { expected: number } };
    };
    const onePass =
      Math.ceil(manifest.expected / PAGE_SIZE) + Math.ceil(manifest.completeness.collections.expected / PAGE_SIZE);
    return {
      code,
      seconds,
      requests: manifest.requests,
      written: manifest.records_written,
      complete: manifest.complete,
      onePass,
    };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
