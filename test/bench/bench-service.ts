/** The parent's handle on the service process: start it (on one core or not), read its counters per run, stop it. */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ServiceOptions } from 'img-etl';
import { pinnedArgv } from './pinning.js';
import type { ServiceCommand, ServiceReply } from './service-process.js';

/** The service's load model. */
export interface LoadModel {
  /** Generated records. */
  records: number;
  /** Seed of the generated records. */
  seed: number;
  /** Concurrent workers (0: no limit). */
  workers: number;
  /** Milliseconds per page, holding a worker. */
  pageLatencyMs: number;
  /** Milliseconds per record on the page, holding a worker. */
  recordLatencyMs: number;
  /** Further fault options of the service (unstable order, inserts, deletes); default none. */
  faults?: Record<string, number | string>;
  /** Bytes per second each file response under /media/ is sent at, at most (0 or absent: no cap). */
  fileBytesPerSecond?: number;
  /** Serve the collection endpoints; false: 404 there, as a copy of the image list alone would. Default true. */
  collectionEndpoints?: boolean;
  /** The order the service lists records and collections in (ServiceOptions.listOrder). Default 'id'. */
  listOrder?: 'id' | 'real';
}

/** The service counters the bench reads (a subset of the library's ServiceStats). */
export interface ServerCounters {
  requests: number;
  listRequests: number;
  byStatus: Record<string, number>;
  pagesServed: number;
  recordsServed: number;
  /** Image records answered by any endpoint (list pages, collections' own lists, single images). */
  imageRecordsServed: number;
  workers: { peakActive: number; peakQueued: number };
}

const SCRIPT = fileURLToPath(new URL('./service-process.js', import.meta.url));

/** The service process's arguments for `model`: records, seed, workers, both latencies, the other options as JSON. */
export function serviceProcessArgs(model: LoadModel): string[] {
  const args = [model.records, model.seed, model.workers, model.pageLatencyMs, model.recordLatencyMs].map(String);
  const files = model.fileBytesPerSecond === undefined ? {} : { fileBytesPerSecond: model.fileBytesPerSecond };
  const endpoints = model.collectionEndpoints === undefined ? {} : { collectionEndpoints: model.collectionEndpoints };
  const order = model.listOrder === undefined ? {} : { listOrder: model.listOrder };
  args.push(JSON.stringify({ ...model.faults, ...files, ...endpoints, ...order }));
  return args;
}

/** The service's options from the arguments `serviceProcessArgs` made (the service process reads them so). */
export function serviceOptionsOf(args: string[]): ServiceOptions {
  const [records, seed, workers, pageLatencyMs, recordLatencyMs] = args.slice(0, 5).map(Number);
  const { collectionEndpoints, listOrder, ...faults } = JSON.parse(args[5] ?? '{}') as Record<string, unknown>;
  return {
    records: records ?? 0,
    seed: seed ?? 1,
    faults: {
      ...faults,
      workers: workers ?? 0,
      pageLatencyMs: pageLatencyMs ?? 0,
      recordLatencyMs: recordLatencyMs ?? 0,
    },
    ...(collectionEndpoints === false ? { collectionEndpoints: false } : {}),
    ...(listOrder === 'real' ? { listOrder: 'real' } : {}),
  };
}

/** A running service process. */
export class BenchService {
  private constructor(
    private readonly child: ChildProcess,
    /** Base URL, e.g. `http://127.0.0.1:40123`. */
    readonly url: string,
    /** Records it lists. */
    readonly count: number,
    /** Its load model. */
    readonly model: LoadModel,
    /** The cores the kernel lets it run on, as it reads them itself (`Cpus_allowed_list`). */
    readonly cpus: string,
  ) {}

  /** Starts the service in a child process, on core `cpu` only when given, and waits until it listens. */
  static async start(model: LoadModel, cpu?: number): Promise<BenchService> {
    const argv = pinnedArgv(cpu, [process.execPath, SCRIPT, ...serviceProcessArgs(model)]);
    // taskset execs node in its own place, so node finds the IPC channel spawn opened for it.
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const ready = await new Promise<Extract<ServiceReply, { type: 'ready' }>>((resolve, reject) => {
      child.once('message', (reply: ServiceReply) =>
        reply.type === 'ready' ? resolve(reply) : reject(new Error(`bench: service sent ${reply.type} before ready`)),
      );
      child.once('exit', (code) => reject(new Error(`bench: the service process exited (${code}) before it listened`)));
      child.once('error', reject);
    });
    return new BenchService(child, ready.url, ready.count, model, ready.cpus);
  }

  /** Zeroes the counters (before a measured run). */
  async reset(): Promise<void> {
    await this.ask({ type: 'reset' });
  }

  /** The counters since the last reset. */
  async stats(): Promise<ServerCounters> {
    const reply = await this.ask({ type: 'stats' });
    return (reply as Extract<ServiceReply, { type: 'stats' }>).stats as ServerCounters;
  }

  /** Changes about `fraction` of the public collections (see service-process.ts), seeded by `round`. */
  async change(fraction: number, round: number): Promise<{ changes: number; collections: number }> {
    const reply = await this.ask({ type: 'change', fraction, round });
    const { changes, collections } = reply as Extract<ServiceReply, { type: 'change' }>;
    return { changes, collections };
  }

  /** Milliseconds of worker time the served pages cost under the load model. */
  pageCostMs(counters: ServerCounters): number {
    return counters.pagesServed * this.model.pageLatencyMs + counters.recordsServed * this.model.recordLatencyMs;
  }

  /** Stops the service and waits for its process to end. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send({ type: 'close' } satisfies ServiceCommand);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  private ask(command: ServiceCommand): Promise<ServiceReply> {
    return new Promise((resolve, reject) => {
      const onExit = (): void => reject(new Error('bench: the service process exited'));
      this.child.once('exit', onExit);
      this.child.once('message', (reply: ServiceReply) => {
        this.child.off('exit', onExit);
        if (reply.type === command.type) resolve(reply);
        else reject(new Error(`bench: asked the service for ${command.type}, it answered ${reply.type}`));
      });
      this.child.send(command);
    });
  }
}
