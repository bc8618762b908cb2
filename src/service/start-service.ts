/** Starts the bundled Image Listing Service on node:http. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyChange, type ChangeRequest, type ChangeResult } from './dataset/admin-change.js';
import { Dataset } from './dataset/dataset.js';
import { isOrphan } from './faults/faults.js';
import { handleRequest } from './handle-request.js';
import { PLANTED_FILE_SIZE, resolvePlantedEffect } from './media/planted-map.js';
import { emptyStats, type ServiceStats } from './service-stats.js';
import {
  type FaultOptions,
  NO_FAULTS,
  type ResolvedFaults,
  resolveFaults,
  type ServiceOptions,
  SERVICE_DEFAULTS,
} from './service-options.js';
import type { ServiceContext } from './service-context.js';
import { WorkerPool } from './worker-pool.js';

/** A listening service. */
export interface RunningService {
  /** Origin, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The list endpoint, `${url}/api/images/`. */
  readonly listUrl: string;
  /** The port bound. */
  readonly port: number;
  /** The listed records: order, lookup, mutation log. Its `origin` is this service's url. */
  readonly dataset: Dataset;
  /** A snapshot of the counters. */
  readonly stats: ServiceStats;
  /** The fault options in force. */
  readonly faults: Readonly<ResolvedFaults>;
  /** Changes fault options while running (unmentioned options keep their value); throws on a bad value. */
  setFaults(changes: FaultOptions): void;
  /** Changes K random collections, as `POST /admin/change` does (with or without `admin`); throws on a bad request. */
  change(request: ChangeRequest): ChangeResult;
  /** Zeroes the counters (worker peaks restart from the current counts). */
  resetStats(): void;
  /** Whether a record is an orphan under the current faults (counted, never served). */
  isOrphan(id: number): boolean;
  /** Ids a complete pass over the list would return now: current order, orphans left out. */
  servedIds(): number[];
  /** Records a complete pass would return now, parsed, as served from this service's url. */
  servedRecords(): IterableIterator<Record<string, unknown>>;
  /** Stops listening, ends open connections (idle keep-alive ones too) and resolves once closed. */
  close(): Promise<void>;
}

/** Default number of generated records when no data is given. */
const DEFAULT_GENERATED_RECORDS = 1000;

/** Starts a service and resolves once it listens. */
export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const host = options.host ?? SERVICE_DEFAULTS.host;
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`service: port must be an integer from 0 to 65535, got ${port}`);
  const closing = new AbortController();
  const ctx = serviceContext(options, host, closing.signal);
  const server = createServer((req, res) => handleRequest(ctx, req, res));
  const bound = await listen(server, host, port);
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const url = `http://${hostPart}:${bound}`;
  ctx.fallbackHost = `${hostPart}:${bound}`;
  ctx.dataset.origin = url;
  return runningService(ctx, server, closing, url, bound);
}

/** The state the requests share: the dataset (given or generated), the faults, the worker pool and the counters. */
function serviceContext(options: ServiceOptions, host: string, closing: AbortSignal): ServiceContext {
  if (![undefined, 'id', 'real'].includes(options.listOrder))
    throw new Error(`service: listOrder must be 'id' or 'real', got ${JSON.stringify(options.listOrder)}`);
  const plantedEffect = options.plantedEffect && resolvePlantedEffect(options.plantedEffect);
  const dataset = new Dataset({
    data: options.data ?? [],
    records: options.records ?? (options.data && options.data.length > 0 ? 0 : DEFAULT_GENERATED_RECORDS),
    seed: options.seed ?? SERVICE_DEFAULTS.seed,
    order: options.listOrder,
    ...(plantedEffect && { fileSize: PLANTED_FILE_SIZE }),
  });
  const faults = resolveFaults(NO_FAULTS, options.faults);
  return {
    dataset,
    faults,
    pool: new WorkerPool(faults.workers),
    stats: emptyStats(),
    fallbackHost: host,
    closing,
    collectionEndpoints: options.collectionEndpoints ?? true,
    admin: options.admin ?? false,
    apiTokens: new Set(options.apiTokens ?? []),
    plantedEffect,
    dataRequests: 0,
    fileRequests: 0,
  };
}

/** Listens on `host:port` and resolves with the port bound; a prefixed error when it cannot. */
async function listen(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) =>
      reject(new Error(`service: cannot listen on ${host}:${port}: ${err.message}`, { cause: err })),
    );
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** The RunningService of a listening server: its counters and faults read live, its close done once. */
function runningService(
  ctx: ServiceContext,
  server: Server,
  closing: AbortController,
  url: string,
  bound: number,
): RunningService {
  const dataset = ctx.dataset;
  return {
    url,
    listUrl: `${url}/api/images/`,
    port: bound,
    dataset,
    get stats(): ServiceStats {
      return structuredClone({ ...ctx.stats, workers: ctx.pool.stats() });
    },
    get faults(): Readonly<ResolvedFaults> {
      return ctx.faults;
    },
    setFaults(changes: FaultOptions): void {
      ctx.faults = resolveFaults(ctx.faults, changes);
      ctx.pool.resize(ctx.faults.workers);
    },
    change: (request) => applyChange(dataset, request),
    resetStats(): void {
      ctx.stats = emptyStats();
      ctx.pool.resetPeaks();
    },
    isOrphan: (id) => isOrphan(ctx.faults, id),
    servedIds: () => dataset.ids().filter((id) => !isOrphan(ctx.faults, id)),
    *servedRecords() {
      for (const id of dataset.ids()) {
        if (!isOrphan(ctx.faults, id)) yield JSON.parse(dataset.recordJson(id, url)) as Record<string, unknown>;
      }
    },
    close: closeOnce(ctx, server, closing),
  };
}

/** Closing the service: stops listening, ends every connection and waiting request; later calls share its promise. */
function closeOnce(ctx: ServiceContext, server: Server, closing: AbortController): () => Promise<void> {
  let closed: Promise<void> | undefined;
  return () => {
    closed ??= new Promise<void>((resolve) => {
      closing.abort();
      ctx.pool.abortWaiting(new Error('service: closing'));
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closed;
  };
}
