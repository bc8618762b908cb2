/** The `img-etl serve` command: its options turned into the bundled service's, and the service up until a signal. */
import type { CommandIo } from '../command-io.js';
import type { ArgumentsCamelCase, CommandModule, InferredOptionTypes } from 'yargs';
import { readNdjsonLines } from '../../service/records/data-records.js';
import { FAULT_KNOBS, knobFlag, type FaultOptions, type ServiceOptions } from '../../service/service-options.js';
import {
  DEFAULT_SERVED_RECORDS,
  SERVE_OPTIONS,
  type SERVICE_OPTIONS,
  type PLANTED_OPTIONS,
} from '../options/option-table.js';
import { checkOptions } from '../options/option-spec.js';
import { camelCase } from '../options/strict-booleans.js';
import { UsageError } from '../usage-error.js';
import { fileSystemReason } from '../../load/file-system/file-system-error.js';

/** Parsed arguments of `img-etl serve`: its own options, and a number for each fault knob's flag. */
type ServeArgs = ArgumentsCamelCase<InferredOptionTypes<typeof SERVICE_OPTIONS & typeof PLANTED_OPTIONS>> &
  Record<string, unknown>;

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
  checkOptions(args, SERVE_OPTIONS);
  const data = args.data === undefined ? undefined : dataLines(args.data);
  const knobs = Object.keys(FAULT_KNOBS) as (keyof typeof FAULT_KNOBS)[];
  const faults: FaultOptions = {
    ...Object.fromEntries(knobs.map((key) => [key, args[camelCase(knobFlag(key))]])),
    unstableOrderMode: args.unstableOrderMode === 'move' ? 'move' : 'rotate',
  };
  return {
    host: args.host,
    port: args.port,
    data,
    records: args.records ?? (data ? 0 : DEFAULT_SERVED_RECORDS),
    seed: args.seed,
    listOrder: args.listOrder === 'real' ? 'real' : 'id',
    faults,
    admin: args.admin === true,
    apiTokens: args.apiToken ?? [],
    ...(args.plantParadigm !== undefined && {
      plantedEffect: {
        paradigm: args.plantParadigm,
        at: args.plantAt?.split(',').map(Number) as [number, number, number] | undefined,
        z: args.plantZ,
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
        .group(['port', 'records', 'data', 'admin', 'seed', 'list-order', 'host', 'api-token'], 'Service:')
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
