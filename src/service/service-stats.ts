/** Counters a running service keeps for tests and benchmarks. */
import type { WorkerStats } from './worker-pool.js';

/** A snapshot of the service's counters since start (or the last reset). */
export type ServiceStats = ReturnType<typeof emptyStats> & {
  /** Worker pool counters. */
  workers: WorkerStats;
};

/** One file response as the service sent it. */
export interface FileResponse {
  /** The decoded path. */
  path: string;
  /** GET or HEAD. */
  method: string;
  /** The status sent. */
  status: number;
  /** The Range header received, when there was one. */
  range?: string;
  /** The first byte of the file the body started at (0 for a whole file). */
  start: number;
  /** Body bytes written to the socket. */
  sent: number;
  /** The fault applied, if any. */
  fault: string;
}

/** Fresh counters, all zero: the service's counters but the worker pool's. */
export function emptyStats() {
  return {
    /** Requests received, all paths and methods. */
    requests: 0,
    /** Requests received on the list endpoint (GET and HEAD). */
    listRequests: 0,
    /** Requests received on the single-image endpoint `/api/images/<id>/` (GET and HEAD). */
    detailRequests: 0,
    /** Requests received on the collection endpoints (GET and HEAD). */
    collectionRequests: 0,
    /** Responses by status code; resets and truncations count under the status they started (or 0 for a reset). */
    byStatus: {} as Record<number, number>,
    /** List pages answered completely with status 200. */
    pagesServed: 0,
    /** Records in those pages. */
    recordsServed: 0,
    /** Image records answered by any endpoint: list pages (as recordsServed), collection image pages, single images. */
    imageRecordsServed: 0,
    /** Orphan records left out of pages. */
    orphansDropped: 0,
    /** Faults injected, by kind. */
    faults: { '500': 0, '502': 0, '504': 0, '429': 0, truncate: 0, reset: 0 },
    /** Records inserted, deleted, edited and moved by the mutation knobs. */
    mutations: { inserted: 0, deleted: 0, edited: 0, moved: 0 },
    /** List requests served from a rotated scan. */
    rotatedScans: 0,
    /** Files served under /media/ (GET and HEAD): requests received, body bytes written, each response as it ended. */
    files: { requests: 0, bytesSent: 0, log: [] as FileResponse[] },
  };
}
