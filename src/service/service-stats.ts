/** Counters a running service keeps for tests and benchmarks. */
import type { WorkerStats } from './worker-pool.js';

/** A snapshot of the service's counters since start (or the last reset). */
export interface ServiceStats {
  /** Requests received, all paths and methods. */
  requests: number;
  /** Requests received on the list endpoint (GET and HEAD). */
  listRequests: number;
  /** Requests received on the single-image endpoint `/api/images/<id>/` (GET and HEAD). */
  detailRequests: number;
  /** Requests received on the collection endpoints (GET and HEAD). */
  collectionRequests: number;
  /** Responses by status code; resets and truncations count under the status they started (or 0 for a reset). */
  byStatus: Record<number, number>;
  /** List pages answered completely with status 200. */
  pagesServed: number;
  /** Records in those pages. */
  recordsServed: number;
  /** Image records answered by any endpoint: list pages (as recordsServed), collection image pages, single images. */
  imageRecordsServed: number;
  /** Orphan records left out of pages. */
  orphansDropped: number;
  /** Faults injected, by kind. */
  faults: { '500': number; '502': number; '504': number; '429': number; truncate: number; reset: number };
  /** Records inserted, deleted, edited and moved by the mutation knobs. */
  mutations: { inserted: number; deleted: number; edited: number; moved: number };
  /** List requests served from a rotated scan. */
  rotatedScans: number;
  /** Files served under /media/ (GET and HEAD). */
  files: FileStats;
  /** Worker pool counters. */
  workers: WorkerStats;
}

/** Counters of the files served under /media/. */
export interface FileStats {
  /** File requests received. */
  requests: number;
  /** Body bytes written to the sockets, all responses together. */
  bytesSent: number;
  /** Each file response, in the order they ended. */
  log: FileResponse[];
}

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

/** Fresh counters, all zero. */
export function emptyStats(): Omit<ServiceStats, 'workers'> {
  return {
    requests: 0,
    listRequests: 0,
    detailRequests: 0,
    collectionRequests: 0,
    byStatus: {},
    pagesServed: 0,
    recordsServed: 0,
    imageRecordsServed: 0,
    orphansDropped: 0,
    faults: { '500': 0, '502': 0, '504': 0, '429': 0, truncate: 0, reset: 0 },
    mutations: { inserted: 0, deleted: 0, edited: 0, moved: 0 },
    rotatedScans: 0,
    files: { requests: 0, bytesSent: 0, log: [] },
  };
}
