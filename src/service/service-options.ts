/** Options of the bundled Image Listing Service and of its fault injector. */
import type { DataRecordInput } from './records/data-records.js';

/** What a fault plan or the rates can make a data request do instead of (or while) answering normally. */
export type FaultKind =
  /** answer normally */
  | 'none'
  /** Django's HTML "Server Error (500)" page */
  | '500'
  /** the proxy's HTML 502 Bad Gateway page */
  | '502'
  /** the proxy's HTML 504 Gateway Time-out page */
  | '504'
  /** 429 with a Retry-After header */
  | '429'
  /** status 200 and the full Content-Length, part of the body, then the socket is destroyed */
  | 'truncate'
  /** the socket is reset without any response */
  | 'reset';

/** What a file fault makes a response under /media/ do. */
export type FileFaultKind =
  /** answer normally */
  | 'none'
  /** the status and the whole Content-Length, part of the body, then the socket is destroyed */
  | 'truncate'
  /** a whole, valid file of another length than the record's `file_size` */
  | 'wrong-length'
  /** the right length, one byte of the body changed */
  | 'corrupt'
  /** the Range header is ignored: 200 and the whole file */
  | 'ignore-range';

/** What a file fault plan is told about a request for a file under /media/. */
export interface PlannedFileRequest {
  /** The method, GET or HEAD. */
  method: string;
  /** The decoded path. */
  path: string;
  /** The Range header, when there was one. */
  range: string | undefined;
  /** 1 for the first file request the service received, 2 for the second, and so on. */
  n: number;
}

/** What a fault plan is told about a data request (GET or HEAD on the list or on one image). */
export interface PlannedRequest {
  /** The method, GET or HEAD. */
  method: string;
  /** The request target as received, path and query. */
  url: string;
  /** 1 for the first data request the service received, 2 for the second, and so on. */
  n: number;
}

/**
 * Fault knobs; all off by default. They act on GET and HEAD of the data endpoints (the list and one image):
 * every such request may draw a fault and the mutations, holds a worker and spends the latency.
 */
export interface FaultOptions {
  /** Concurrent workers; requests beyond wait in line, and latency is spent holding a worker. Default 0 (no limit). */
  workers?: number;
  /** Milliseconds spent per response (a page, or one image), holding a worker. Default 0. */
  pageLatencyMs?: number;
  /** Milliseconds spent per record in the response, holding a worker. Default 0. */
  recordLatencyMs?: number;
  /** Probability that a data request answers 500 (Django's HTML page). Default 0. */
  rate500?: number;
  /** Probability of a 502 from the proxy (HTML). Default 0. */
  rate502?: number;
  /** Probability of a 504 from the proxy (HTML). Default 0. */
  rate504?: number;
  /** Probability of a 429 with Retry-After. Default 0. */
  rate429?: number;
  /** Seconds in the Retry-After header of a 429. Default 1. */
  retryAfterSeconds?: number;
  /** Probability that a 200 body is cut short and the connection destroyed. Default 0. */
  rateTruncate?: number;
  /** Probability that the connection is reset without a response. Default 0. */
  rateReset?: number;
  /** Probability per data request that records are inserted at random rows before it is answered. Default 0. */
  insertRate?: number;
  /** Records inserted each time. Default 1. */
  insertCount?: number;
  /** Probability per data request that records are deleted at random rows before it is answered. Default 0. */
  deleteRate?: number;
  /** Records deleted each time. Default 1. */
  deleteCount?: number;
  /**
   * Probability per data request that records are edited in place (modify_date to now, the name suffixed, the
   * collection's modify_date moved) before it is answered. Default 0.
   */
  editRate?: number;
  /** Records edited each time. Default 1. */
  editCount?: number;
  /** Probability per list request that the row order is unstable for it. Default 0. */
  unstableOrderRate?: number;
  /**
   * How the order changes: 'rotate' serves that request from a scan that starts at a random row and
   * wraps (a synchronized sequential scan); 'move' moves `moveCount` random rows to the end for good
   * (updated rows). Default 'rotate'.
   */
  unstableOrderMode?: 'rotate' | 'move';
  /** Rows moved to the end each time in 'move' mode. Default 10. */
  moveCount?: number;
  /** Share of records counted in `count` but dropped from pages (decided per id). Default 0. */
  orphanRate?: number;
  /** Seed of every fault decision, so runs repeat exactly. Default 1. */
  faultSeed?: number;
  /** Picks the fault for a data request; undefined leaves it to the rates. Default none. */
  plan?: (request: PlannedRequest) => FaultKind | undefined;
  /** Probability that a file response under /media/ is cut short and the connection destroyed. Default 0. */
  fileTruncateRate?: number;
  /** Probability that a file response is a whole file of another length than `file_size`. Default 0. */
  fileWrongLengthRate?: number;
  /** Probability that a file response has one byte changed. Default 0. */
  fileCorruptRate?: number;
  /** Probability that a file request's Range header is ignored (200, the whole file). Default 0. */
  fileIgnoreRangeRate?: number;
  /**
   * Bytes per second each file response is sent at, at most (one response at a time per connection); 0: no cap. Default
   * 0.
   */
  fileBytesPerSecond?: number;
  /** Picks the fault for a file request; undefined leaves it to the file rates. Default none. */
  filePlan?: (request: PlannedFileRequest) => FileFaultKind | undefined;
}

/**
 * The planted-effect knob: every image file a statistic map on the grid of nilearn's MNI152 template at 2 mm, of
 * standard normal noise drawn from the seed and the id; the group-level Z maps of one Cognitive Atlas paradigm add a
 * Gaussian blob (3 mm wide, zero beyond 9 mm) peaking at `z` at `at`. Every listed `file_size` above 0 becomes the
 * size of such a file.
 */
export interface PlantedEffect {
  /** The `cognitive_paradigm_cogatlas_id` whose `map_type` "Z map", `analysis_level` "group" maps carry the effect. */
  paradigm: string;
  /** The blob's centre in MNI millimetres. Default [-22, -4, -18] (the left amygdala). */
  at?: readonly [number, number, number];
  /** The blob's peak in each map that carries it, in standard deviations of the noise. Default 2. */
  z?: number;
}

/** Options of `startService`. */
export interface ServiceOptions {
  /** Address to listen on. Default '127.0.0.1'. */
  host?: string;
  /** Port to listen on; 0 picks a free one. Default 0. */
  port?: number;
  /**
   * Given records (JSON text kept byte for byte, or objects), served in this order, URLs re-based on the served origin.
   * Default none.
   */
  data?: readonly DataRecordInput[];
  /** Generated records mixed in with the given ones. Default 0 when `data` is given, else 1000. */
  records?: number;
  /** Seed of the generated records. Default 1. */
  seed?: number;
  /** Fault knobs. Default all off. */
  faults?: FaultOptions;
  /** Serve the collection endpoints; false answers 404 there, as a copy of the image list alone would. Default true. */
  collectionEndpoints?: boolean;
  /**
   * Serve `POST /admin/change?kind=…&collections=K&seed=S`, which changes K random collections (see admin-change.ts);
   * false answers 404 there, as any unknown path. Default false.
   */
  admin?: boolean;
  /**
   * API tokens the service has issued (`Authorization: Token <key>`); a request with another key gets 401 "Invalid
   * token." on every API view, as DRF's TokenAuthentication answers. Default none.
   */
  apiTokens?: readonly string[];
  /** Serve maps on nilearn's MNI152 2 mm grid with an effect planted for one paradigm. Default none. */
  plantedEffect?: PlantedEffect;
}

/** Fault options with every default filled in. */
export type ResolvedFaults = Required<Omit<FaultOptions, Plans>> & Pick<FaultOptions, Plans>;

/** The fault options that are functions, with no default. */
type Plans = 'plan' | 'filePlan';

/** The fault options in force when none are given. */
export const NO_FAULTS: ResolvedFaults = {
  workers: 0,
  pageLatencyMs: 0,
  recordLatencyMs: 0,
  rate500: 0,
  rate502: 0,
  rate504: 0,
  rate429: 0,
  retryAfterSeconds: 1,
  rateTruncate: 0,
  rateReset: 0,
  insertRate: 0,
  insertCount: 1,
  deleteRate: 0,
  deleteCount: 1,
  editRate: 0,
  editCount: 1,
  unstableOrderRate: 0,
  unstableOrderMode: 'rotate',
  moveCount: 10,
  orphanRate: 0,
  faultSeed: 1,
  fileTruncateRate: 0,
  fileWrongLengthRate: 0,
  fileCorruptRate: 0,
  fileIgnoreRangeRate: 0,
  fileBytesPerSecond: 0,
};

const PROBABILITIES = [
  'rate500',
  'rate502',
  'rate504',
  'rate429',
  'rateTruncate',
  'rateReset',
  'insertRate',
  'deleteRate',
  'editRate',
  'unstableOrderRate',
  'orphanRate',
  'fileTruncateRate',
  'fileWrongLengthRate',
  'fileCorruptRate',
  'fileIgnoreRangeRate',
] as const;
const DURATIONS = ['pageLatencyMs', 'recordLatencyMs', 'retryAfterSeconds', 'fileBytesPerSecond'] as const;
const COUNTS = ['workers', 'insertCount', 'deleteCount', 'editCount', 'moveCount', 'faultSeed'] as const;

/** Merges changes into fault options, checking each value; throws with the bad value in the message. */
export function resolveFaults(base: ResolvedFaults, changes: FaultOptions = {}): ResolvedFaults {
  const next: ResolvedFaults = { ...base };
  for (const [key, value] of Object.entries(changes) as [keyof FaultOptions, unknown][]) {
    if (value === undefined) {
      if (key === 'plan') delete next.plan;
      if (key === 'filePlan') delete next.filePlan;
      continue;
    }
    if ((PROBABILITIES as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !(value >= 0 && value <= 1))
        throw new Error(`service: ${key} must be a probability from 0 to 1, got ${shown(value)}`);
    } else if ((DURATIONS as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
        throw new Error(`service: ${key} must be a non-negative number, got ${shown(value)}`);
    } else if ((COUNTS as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
        throw new Error(`service: ${key} must be a non-negative integer, got ${shown(value)}`);
    } else if (key === 'unstableOrderMode') {
      if (value !== 'rotate' && value !== 'move')
        throw new Error(`service: unstableOrderMode must be 'rotate' or 'move', got ${shown(value)}`);
    } else if (key === 'plan' || key === 'filePlan') {
      if (typeof value !== 'function') throw new Error(`service: ${key} must be a function, got ${typeof value}`);
    } else {
      throw new Error(`service: unknown fault option ${JSON.stringify(key)}`);
    }
    (next as unknown as Record<string, unknown>)[key] = value;
  }
  const errorShare = next.rate500 + next.rate502 + next.rate504 + next.rate429 + next.rateTruncate + next.rateReset;
  if (errorShare > 1) throw new Error(`service: fault rates add up to ${errorShare}, more than 1`);
  const fileShare = next.fileTruncateRate + next.fileWrongLengthRate + next.fileCorruptRate + next.fileIgnoreRangeRate;
  if (fileShare > 1) throw new Error(`service: file fault rates add up to ${fileShare}, more than 1`);
  return next;
}

/** A bad option value as a message shows it: a number as it is, anything else as JSON (`"0.5"`, `{}`). */
function shown(value: unknown): string {
  return typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? typeof value);
}
