/** The benchmark's command line. */
import { parseArgs } from 'node:util';
import { defaultRusageSource, type RusageSource } from './measure.js';

/**
 * The scenarios: CPU-bound, server-bound, memory, Parquet size, an unstable list (requests per record), the files, and
 * incremental snapshots (server-bound, what a nightly run reads after 1% of the collections changed).
 */
export const SCENARIOS = ['cpu', 'server', 'memory', 'size', 'unstable', 'files', 'incremental'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** Everything a bench run is configured by. */
export interface BenchOptions {
  /** Records of the CPU-bound and size scenarios; default 200,000. */
  records: number;
  /** Scenarios to run; default all. */
  scenarios: ScenarioName[];
  /** Runs of each measurement; the median is reported; default 1 (the targets are judged on 5). */
  repeat: number;
  /** Where the JSON results go; default output/bench.json. */
  out: string;
  /** Pages in flight, every client alike; default 4. */
  concurrency: number;
  /** img-etl's `--page-size` in every scenario; default undefined: not passed, img-etl's own default. */
  pageSize: number | undefined;
  /** Page size of the floor and the DuckDB peer (CPU-bound, memory, size); default 1000 (the service's cap). */
  peerPageSize: number;
  /** Records of the server-bound scenario; default 20,000. */
  serverRecords: number;
  /** The server-bound load model: workers, ms per page, ms per record; default 4, 200, 3. */
  serverWorkers: number;
  pageLatencyMs: number;
  recordLatencyMs: number;
  /** The two sizes of the memory scenario; default 100,000 and 500,000. */
  memoryRecords: [number, number];
  /** Records of the unstable-order scenario; default 3,000. */
  unstableRecords: number;
  /** Seed of the generated records; default 1. */
  seed: number;
  /** Where peak RSS and CPU time come from; default GNU time when installed. */
  rusage: RusageSource;
  /** Pin the service to one core and each measured client to another (taskset); default true. */
  pin: boolean;
  /** CPU-bound scenario: measure every run unpinned too, as information; default true. */
  unpinned: boolean;
  /** Files scenario: the service's cap per file connection, bytes per second; default 1,000,000. */
  filesRate: number;
  /** Files scenario: files fetched; default 150. */
  filesCount: number;
}

export const USAGE = `npm run bench -- [options]

Measures img-etl end to end against the bundled service (in its own process), the DuckDB peer (fetch
with limit 1000, JSON.parse, NDJSON, DuckDB COPY to Parquet or CSV) and the floor (a client that only
fetches and JSON.parses every page), and checks the targets. The service runs on one core and each
measured client on another (taskset, from util-linux). Needs GNU time (/usr/bin/time, Debian package
"time") for peak RSS; without it the children report their own.

  --records N            records of the CPU-bound and size scenarios        (default 200000)
  --scenarios LIST       any of cpu,server,memory,size,unstable,files,       (default all)
                         incremental
  --repeat K             measure each run K times, report the median         (default 1; targets: 5)
  --out FILE             JSON results                                        (default output/bench.json)
  --concurrency N        pages in flight, every client alike                 (default 4)
  --page-size N          img-etl's --page-size in every scenario             (default: not passed, img-etl's own)
  --peer-page-size N     page size of the floor and the DuckDB peer          (default 1000)
                         (in the server-bound scenario the floor pages as img-etl does)
  --server-records N     records of the server-bound and incremental ones    (default 20000)
  --server-workers N     service workers in the server-bound and incremental (default 4)
  --page-latency MS      ms per page in the server-bound and incremental     (default 200)
  --record-latency MS    ms per record in the server-bound and incremental   (default 3)
  --memory-records A,B   the two sizes of the memory scenario                (default 100000,500000)
  --unstable-records N   records of the unstable-order scenario              (default 3000)
  --seed S               seed of the generated records                       (default 1)
  --rusage time|preload  peak RSS from /usr/bin/time -v or from the child    (default time if installed)
  --no-pin               run nothing pinned (the service shares the clients' cores)
  --no-unpinned          CPU-bound: skip the unpinned runs kept as information
  --files-rate B         files: the service's bytes per second per file connection (default 1000000)
  --files-count N        files: image files fetched, at --concurrency at a time  (default 150)
`;

/** Parses argv; throws a one-line error on a bad value. Returns undefined for --help. */
export function parseBenchOptions(argv: string[]): BenchOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    allowNegative: true,
    options: {
      help: { type: 'boolean' },
      records: { type: 'string', default: '200000' },
      scenarios: { type: 'string', default: SCENARIOS.join(',') },
      repeat: { type: 'string', default: '1' },
      out: { type: 'string', default: 'output/bench.json' },
      concurrency: { type: 'string', default: '4' },
      'page-size': { type: 'string' },
      'peer-page-size': { type: 'string', default: '1000' },
      'server-records': { type: 'string', default: '20000' },
      'server-workers': { type: 'string', default: '4' },
      'page-latency': { type: 'string', default: '200' },
      'record-latency': { type: 'string', default: '3' },
      'memory-records': { type: 'string', default: '100000,500000' },
      'unstable-records': { type: 'string', default: '3000' },
      seed: { type: 'string', default: '1' },
      rusage: { type: 'string' },
      pin: { type: 'boolean', default: true },
      unpinned: { type: 'boolean', default: true },
      'files-rate': { type: 'string', default: '1000000' },
      'files-count': { type: 'string', default: '150' },
    },
  });
  if (values.help === true) return undefined;
  const scenarios = values.scenarios
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const s of scenarios)
    if (!(SCENARIOS as readonly string[]).includes(s))
      throw new Error(`bench: --scenarios: unknown scenario ${JSON.stringify(s)} (expected ${SCENARIOS.join(', ')})`);
  const memory = values['memory-records'].split(',').map((s, i) => count(`memory-records[${i}]`, s, 1));
  if (memory.length !== 2)
    throw new Error(
      `bench: --memory-records: expected two sizes like 100000,500000, got ${JSON.stringify(values['memory-records'])}`,
    );
  const rusage = values.rusage ?? defaultRusageSource();
  if (rusage !== 'time' && rusage !== 'preload')
    throw new Error(`bench: --rusage: expected time or preload, got ${JSON.stringify(rusage)}`);
  const pageSize = values['page-size'];
  return {
    records: count('records', values.records, 1),
    scenarios: SCENARIOS.filter((s) => scenarios.includes(s)),
    repeat: count('repeat', values.repeat, 1),
    out: values.out,
    concurrency: count('concurrency', values.concurrency, 1),
    pageSize: pageSize === undefined ? undefined : count('page-size', pageSize, 1),
    peerPageSize: count('peer-page-size', values['peer-page-size'], 1),
    serverRecords: count('server-records', values['server-records'], 1),
    serverWorkers: count('server-workers', values['server-workers'], 1),
    pageLatencyMs: count('page-latency', values['page-latency'], 0),
    recordLatencyMs: count('record-latency', values['record-latency'], 0),
    memoryRecords: [memory[0] as number, memory[1] as number],
    unstableRecords: count('unstable-records', values['unstable-records'], 1),
    seed: count('seed', values.seed, 0),
    rusage,
    pin: values.pin,
    unpinned: values.unpinned,
    filesRate: count('files-rate', values['files-rate'], 1),
    filesCount: count('files-count', values['files-count'], 1),
  };
}

function count(flag: string, raw: string, min: number): number {
  const value = Number(raw.replaceAll('_', ''));
  if (raw.trim() === '' || !Number.isSafeInteger(value) || value < min)
    throw new Error(`bench: --${flag}: expected an integer of at least ${min}, got ${JSON.stringify(raw)}`);
  return value;
}
