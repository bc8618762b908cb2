/** The `img-etl serve` command: its options turned into the bundled service's, and the service up until a signal. */
import type { CommandIo } from '../command-io.js';
import type { ArgumentsCamelCase, CommandModule, Options } from 'yargs';
import { readNdjsonLines } from '../../service/records/data-records.js';
import type { FaultOptions, ServiceOptions } from '../../service/service-options.js';
import { describeNumber } from '../options/snapshot-options.js';
import { UsageError } from '../usage-error.js';
import { fileSystemReason } from '../../load/file-system/file-system-error.js';

/** Generated records when neither --data nor --records is given. */
const DEFAULT_RECORDS = 10_000;

/** A numeric fault option of `group`, `byDefault` (0: off) unless given. */
function fault(describe: string, byDefault = 0, group = 'Faults:') {
  return { type: 'number', default: byDefault, describe, group } as const;
}

/** A numeric file fault option, off by default. */
function fileFault(describe: string) {
  return fault(describe, 0, 'File faults:');
}

const SERVE_OPTIONS = {
  host: { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' },
  port: { type: 'number', default: 8000, describe: 'Port to listen on (0: any free port)' },
  data: {
    type: 'string',
    describe: 'Serve the records of this NDJSON file, in file order (URLs re-based on the served origin)',
  },
  records: {
    type: 'number',
    describe: `Generated records (default ${DEFAULT_RECORDS}, or 0 with --data; with --data they are mixed in)`,
  },
  seed: { type: 'number', default: 1, describe: 'Seed of the generated records (same seed and count: same bytes)' },
  admin: {
    type: 'boolean',
    default: false,
    describe: 'Serve POST /admin/change?kind=…&collections=K&seed=S, which changes K random collections (see docs)',
  },
  'api-token': {
    type: 'string',
    array: true,
    describe: 'An API token the service accepts (Authorization: Token …; repeatable); any other token gets 401',
  },
  workers: fault('Concurrent workers; requests beyond wait (0: no limit)'),
  'page-latency': fault('Milliseconds per response (a page, one image), spent holding a worker'),
  'record-latency': fault('Milliseconds per record in the response, spent holding a worker'),
  'rate-500': fault("Probability of Django's HTML 500 page"),
  'rate-502': fault("Probability of the proxy's HTML 502 page"),
  'rate-504': fault("Probability of the proxy's HTML 504 page"),
  'rate-429': fault('Probability of a 429 with Retry-After'),
  'retry-after': fault('Seconds in the Retry-After header of a 429', 1),
  'rate-truncate': fault('Probability that a 200 body is cut short and the connection destroyed'),
  'rate-reset': fault('Probability that the connection is reset without a response'),
  'insert-rate': fault('Probability per request that records are inserted at random rows'),
  'insert-count': fault('Records inserted each time', 1),
  'delete-rate': fault('Probability per request that records are deleted at random rows'),
  'delete-count': fault('Records deleted each time', 1),
  'edit-rate': fault('Probability per request that records are edited in place (modify_date now, the name suffixed)'),
  'edit-count': fault('Records edited each time', 1),
  'unstable-order': fault('Probability per request that the row order of /api/images/ or /api/collections/ changes'),
  'unstable-order-mode': {
    choices: ['rotate', 'move'],
    default: 'rotate',
    describe: 'rotate: scan starts at a random row; move: rows move to the end',
    group: 'Faults:',
  },
  'move-count': fault('Rows moved each time in move mode', 10),
  'orphan-rate': fault('Share of records counted but never served'),
  'fault-seed': fault('Seed of every fault decision', 1),
  'file-truncate-rate': fileFault('Probability that a file body under /media/ is cut short'),
  'file-wrong-length-rate': fileFault('Probability that a file is served at another length than its file_size'),
  'file-corrupt-rate': fileFault('Probability that a file is served with one byte changed'),
  'file-ignore-range-rate': fileFault('Probability that a Range header is ignored (200, the whole file)'),
  'file-rate': fileFault('Bytes per second each file response is sent at, at most (0: no cap)'),
  'plant-paradigm': {
    type: 'string',
    describe:
      "Serve every image as a map of noise on nilearn's MNI152 2 mm grid; the group-level Z maps of this Cognitive " +
      'Atlas paradigm id (cognitive_paradigm_cogatlas_id) carry a planted effect',
    group: 'Planted effect:',
  },
  'plant-at': {
    type: 'string',
    describe: "The effect's centre, x,y,z in MNI mm (default -22,-4,-18)",
    group: 'Planted effect:',
  },
  'plant-z': fault("The effect's peak in each map, in standard deviations of the noise", 2, 'Planted effect:'),
} as const satisfies Record<string, Options>;

type ServeOption = typeof SERVE_OPTIONS;
type ServeValue<O> = O extends { type: 'number' }
  ? number | undefined
  : O extends { type: 'boolean' }
    ? boolean | undefined
    : O extends { array: true }
      ? string[] | undefined
      : string | undefined;
type ServeArgs = ArgumentsCamelCase<{ [K in keyof ServeOption]: ServeValue<ServeOption[K]> }>;

/** The records' lines of the --data file; a one-line usage error naming it and why when it cannot be read. */
function dataLines(path: string): string[] {
  try {
    return readNdjsonLines(path);
  } catch (err) {
    const cause = (err as Error).cause ?? err;
    if ((cause as NodeJS.ErrnoException).code === 'EISDIR')
      throw new UsageError(`--data: ${path} is a folder; give an NDJSON file of records`);
    throw new UsageError(`--data: cannot read ${path}: ${fileSystemReason(cause)}`);
  }
}

/** Turns parsed serve arguments into service options, failing with a one-line message on a bad value. */
export function serveOptionsFrom(args: ServeArgs): ServiceOptions {
  const data = args.data === undefined ? undefined : dataLines(args.data);
  const faults: FaultOptions = {
    workers: integer('workers', args.workers),
    pageLatencyMs: nonNegative('page-latency', args.pageLatency),
    recordLatencyMs: nonNegative('record-latency', args.recordLatency),
    rate500: probability('rate-500', args.rate500),
    rate502: probability('rate-502', args.rate502),
    rate504: probability('rate-504', args.rate504),
    rate429: probability('rate-429', args.rate429),
    retryAfterSeconds: nonNegative('retry-after', args.retryAfter),
    rateTruncate: probability('rate-truncate', args.rateTruncate),
    rateReset: probability('rate-reset', args.rateReset),
    insertRate: probability('insert-rate', args.insertRate),
    insertCount: integer('insert-count', args.insertCount),
    deleteRate: probability('delete-rate', args.deleteRate),
    deleteCount: integer('delete-count', args.deleteCount),
    editRate: probability('edit-rate', args.editRate),
    editCount: integer('edit-count', args.editCount),
    unstableOrderRate: probability('unstable-order', args.unstableOrder),
    unstableOrderMode: args.unstableOrderMode === 'move' ? 'move' : 'rotate',
    moveCount: integer('move-count', args.moveCount),
    orphanRate: probability('orphan-rate', args.orphanRate),
    faultSeed: integer('fault-seed', args.faultSeed),
    fileTruncateRate: probability('file-truncate-rate', args.fileTruncateRate),
    fileWrongLengthRate: probability('file-wrong-length-rate', args.fileWrongLengthRate),
    fileCorruptRate: probability('file-corrupt-rate', args.fileCorruptRate),
    fileIgnoreRangeRate: probability('file-ignore-range-rate', args.fileIgnoreRangeRate),
    fileBytesPerSecond: nonNegative('file-rate', args.fileRate),
  };
  const port = integer('port', args.port);
  if (port !== undefined && port > 65535) throw new UsageError(`--port: expected 0 to 65535, got ${port}`);
  return {
    host: args.host ?? '127.0.0.1',
    port,
    data,
    records: integer('records', args.records) ?? (data ? 0 : DEFAULT_RECORDS),
    seed: integer('seed', args.seed),
    faults,
    admin: args.admin === true,
    apiTokens: args.apiToken ?? [],
    ...(args.plantParadigm !== undefined && {
      plantedEffect: {
        paradigm: args.plantParadigm,
        at: millimetres(args.plantAt),
        z: nonNegative('plant-z', args.plantZ),
      },
    }),
  };
}

/** `img-etl serve`: the bundled Image Listing Service, up until SIGINT or SIGTERM. */
export function serveCommand(io: CommandIo): CommandModule<object, ServeArgs> {
  return {
    command: 'serve',
    describe:
      'Run a local copy of the Image Listing Service (/api/images/, /api/images/<id>/, /api/collections/, ' +
      '/api/collections/<id>/ and its images/) with generated or given records and optional faults; ' +
      'the fault knobs act on GET and HEAD of all of them, the unstable-order ones on the two unordered lists',
    builder: (y) =>
      y
        // The options most runs set first: yargs prints groups in the order they are made, its own "Options:" last.
        .group(['port', 'records', 'data', 'admin', 'seed', 'host', 'api-token'], 'Service:')
        .options(SERVE_OPTIONS)
        .example('$0 serve --port 0 --records 1000000', 'A million generated records on a free port')
        .example('$0 serve --data records.ndjson --records 500', 'Your records (one a line), 500 generated mixed in')
        .example(
          '$0 serve --workers 4 --page-latency 500 --rate-502 0.05',
          'Slow and flaky, like the real service on a bad day',
        ) as never,
    handler: (args) => runServe(args, io),
  };
}

/** Starts the service, says where it serves, and closes it on SIGINT or SIGTERM with its counts. */
async function runServe(args: ServeArgs, io: CommandIo): Promise<void> {
  const { startService } = await import('../../service/start-service.js'); // the service's code for this command only
  const service = await startService(serveOptionsFrom(args));
  const records = service.dataset.size.toLocaleString('en-US');
  const snapshotIt = `snapshot it with: img-etl --base-url ${service.url}`;
  io.stdout.write(`img-etl serve: serving ${records} records at ${service.listUrl}; ${snapshotIt}\n`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    const stop = (received: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(received);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await service.close();
  const { requests, pagesServed } = service.stats;
  io.stdout.write(`img-etl serve: stopped on ${signal} after ${requests} requests (${pagesServed} pages served)\n`);
  io.setExitCode(0);
}

function integer(flag: string, value: number | undefined): number | undefined {
  if (value === undefined || (Number.isSafeInteger(value) && value >= 0)) return value;
  throw new UsageError(`--${flag}: expected a non-negative integer, got ${describeNumber(value)}`);
}

function nonNegative(flag: string, value: number | undefined): number | undefined {
  if (value === undefined || (Number.isFinite(value) && value >= 0)) return value;
  throw new UsageError(`--${flag}: expected a non-negative number, got ${describeNumber(value)}`);
}

/** The --plant-at value: three numbers, x,y,z. */
function millimetres(value: string | undefined): [number, number, number] | undefined {
  const at = value?.split(',').map((part) => (part.trim() === '' ? NaN : Number(part)));
  if (at === undefined || (at.length === 3 && at.every((v) => Number.isFinite(v))))
    return at as [number, number, number];
  throw new UsageError(`--plant-at: expected x,y,z in MNI millimetres, e.g. -22,-4,-18, got ${JSON.stringify(value)}`);
}

function probability(flag: string, value: number | undefined): number | undefined {
  if (value === undefined || (value >= 0 && value <= 1)) return value;
  throw new UsageError(`--${flag}: expected a probability from 0 to 1, got ${describeNumber(value)}`);
}
