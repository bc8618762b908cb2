/** The benchmark's command line. */
import { parseArgs } from 'node:util';
import { defaultRusageSource, type RusageSource } from './measure.js';

/** The four scenarios of issue 6. */
export const SCENARIOS = ['cpu', 'server', 'memory', 'size'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** Everything a bench run is configured by. */
export interface BenchOptions {
  /** Records of the CPU-bound and size scenarios; default 200,000. */
  records: number;
  /** Scenarios to run; default all. */
  scenarios: ScenarioName[];
  /** Runs of each measurement; the median is reported; default 1. */
  repeat: number;
  /** Where the JSON results go; default output/bench.json. */
  out: string;
  /** Pages in flight, img-etl and the floor alike; default 4. */
  concurrency: number;
  /** Page size of the CPU-bound, memory and size scenarios; default 1000 (the service's cap). */
  pageSize: number;
  /** Records of the server-bound scenario; default 5,000. */
  serverRecords: number;
  /** Page size of the server-bound scenario; default 100 (img-etl's default). */
  serverPageSize: number;
  /** The server-bound load model: workers, ms per page, ms per record; default 4, 200, 3. */
  serverWorkers: number;
  pageLatencyMs: number;
  recordLatencyMs: number;
  /** The two sizes of the memory scenario; default 100,000 and 500,000. */
  memoryRecords: [number, number];
  /** Seed of the generated records; default 1. */
  seed: number;
  /** Where peak RSS and CPU time come from; default GNU time when installed. */
  rusage: RusageSource;
}

export const USAGE = `npm run bench -- [options]

Measures img-etl end to end against the bundled service (in its own process) and the floor (a client
that only fetches and JSON.parses every page), and checks issue 6's targets. Needs GNU time
(/usr/bin/time, Debian package "time") for peak RSS; without it the children report their own.

  --records N            records of the CPU-bound and size scenarios       (default 200000)
  --scenarios LIST       any of cpu,server,memory,size                      (default all)
  --repeat K             measure each run K times, report the median        (default 1)
  --out FILE             JSON results                                       (default output/bench.json)
  --concurrency N        pages in flight, img-etl and floor alike           (default 4)
  --page-size N          page size of the cpu, memory and size scenarios    (default 1000)
  --server-records N     records of the server-bound scenario               (default 5000)
  --server-page-size N   page size of the server-bound scenario             (default 100)
  --server-workers N     service workers in the server-bound scenario       (default 4)
  --page-latency MS      ms per page in the server-bound scenario           (default 200)
  --record-latency MS    ms per record in the server-bound scenario         (default 3)
  --memory-records A,B   the two sizes of the memory scenario               (default 100000,500000)
  --seed S               seed of the generated records                      (default 1)
  --rusage time|preload  peak RSS from /usr/bin/time -v or from the child   (default time if installed)
`;

/** Parses argv; throws a one-line error on a bad value. Returns undefined for --help. */
export function parseBenchOptions(argv: string[]): BenchOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      help: { type: 'boolean' },
      records: { type: 'string', default: '200000' },
      scenarios: { type: 'string', default: SCENARIOS.join(',') },
      repeat: { type: 'string', default: '1' },
      out: { type: 'string', default: 'output/bench.json' },
      concurrency: { type: 'string', default: '4' },
      'page-size': { type: 'string', default: '1000' },
      'server-records': { type: 'string', default: '5000' },
      'server-page-size': { type: 'string', default: '100' },
      'server-workers': { type: 'string', default: '4' },
      'page-latency': { type: 'string', default: '200' },
      'record-latency': { type: 'string', default: '3' },
      'memory-records': { type: 'string', default: '100000,500000' },
      seed: { type: 'string', default: '1' },
      rusage: { type: 'string' },
    },
  });
  if (values.help === true) return undefined;
  const scenarios = values.scenarios.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const s of scenarios) if (!(SCENARIOS as readonly string[]).includes(s)) throw new Error(`bench: --scenarios: unknown scenario ${JSON.stringify(s)} (expected ${SCENARIOS.join(', ')})`);
  const memory = values['memory-records'].split(',').map((s, i) => count(`memory-records[${i}]`, s, 1));
  if (memory.length !== 2) throw new Error(`bench: --memory-records: expected two sizes like 100000,500000, got ${JSON.stringify(values['memory-records'])}`);
  const rusage = values.rusage ?? defaultRusageSource();
  if (rusage !== 'time' && rusage !== 'preload') throw new Error(`bench: --rusage: expected time or preload, got ${JSON.stringify(rusage)}`);
  return {
    records: count('records', values.records, 1),
    scenarios: SCENARIOS.filter((s) => scenarios.includes(s)),
    repeat: count('repeat', values.repeat, 1),
    out: values.out,
    concurrency: count('concurrency', values.concurrency, 1),
    pageSize: count('page-size', values['page-size'], 1),
    serverRecords: count('server-records', values['server-records'], 1),
    serverPageSize: count('server-page-size', values['server-page-size'], 1),
    serverWorkers: count('server-workers', values['server-workers'], 1),
    pageLatencyMs: count('page-latency', values['page-latency'], 0),
    recordLatencyMs: count('record-latency', values['record-latency'], 0),
    memoryRecords: [memory[0] as number, memory[1] as number],
    seed: count('seed', values.seed, 0),
    rusage,
  };
}

function count(flag: string, raw: string, min: number): number {
  const value = Number(raw.replaceAll('_', ''));
  if (raw.trim() === '' || !Number.isSafeInteger(value) || value < min) throw new Error(`bench: --${flag}: expected an integer of at least ${min}, got ${JSON.stringify(raw)}`);
  return value;
}
