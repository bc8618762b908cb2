/** The mutable state a running service's request handlers share. */
import type { Dataset } from './dataset/dataset.js';
import type { PlantedEffect, ResolvedFaults } from './service-options.js';
import type { emptyStats } from './service-stats.js';
import type { WorkerPool } from './worker-pool.js';

/** Shared state of one running service. */
export interface ServiceContext {
  dataset: Dataset;
  faults: ResolvedFaults;
  pool: WorkerPool;
  stats: ReturnType<typeof emptyStats>;
  /** Host and port for absolute URLs when a request has no Host header. */
  fallbackHost: string;
  /** Aborted when the service closes, to cut latency waits short. */
  closing: AbortSignal;
  /** Whether the collection endpoints are routed (else they answer Django's 404 page, as an unknown path does). */
  collectionEndpoints: boolean;
  /** Whether `POST /admin/change` is routed. */
  admin: boolean;
  /** The API tokens issued: any other `Token` key is refused with 401. */
  apiTokens: ReadonlySet<string>;
  /** GET and HEAD requests on data views received so far (numbers the next one for the fault plan). */
  dataRequests: number;
  /** The planted-effect knob, when on: every image file a map on nilearn's MNI152 2 mm grid. */
  plantedEffect: Required<PlantedEffect> | undefined;
  /** GET and HEAD requests for files under /media/ received so far (numbers the next one for the file faults). */
  fileRequests: number;
}

/** Counts a response status. */
export function countStatus(ctx: ServiceContext, status: number): void {
  ctx.stats.byStatus[status] = (ctx.stats.byStatus[status] ?? 0) + 1;
}
