/** Options of the bundled Image Listing Service and of its fault injector. */
import type { DataRecordInput } from './records/data-records.js';
import type { ListOrder } from './basics/real-order.js';

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

/** What a numeric fault knob takes: a probability, a whole number from 0, or an amount from 0 (a time, a rate). */
export type KnobValues = 'probability' | 'count' | 'amount';

/**
 * A knob; its flag is its name in kebab case without the unit (`pageLatencyMs`: `--page-latency`, `rate500`:
 * `--rate-500`) unless `flag` says otherwise.
 */
function knob<T extends KnobValues>(takes: T, byDefault: number, describe: string, flag?: string) {
  return { takes, default: byDefault, describe, flag } as const;
}

/**
 * The numeric fault knobs, the one place each is defined: `FaultOptions`, their defaults, their checks and the flags
 * of `img-etl serve` all derive from it. They act on GET and HEAD of the data endpoints (the list and one image), the
 * file knobs on the files under /media/; all off by default.
 */
export const FAULT_KNOBS = {
  /** Concurrent workers; requests beyond wait in line, and latency is spent holding a worker. Default 0 (no limit). */
  workers: knob('count', 0, 'Concurrent workers; requests beyond wait (0: no limit)'),
  /** Milliseconds spent per response (a page, or one image), holding a worker. Default 0. */
  pageLatencyMs: knob('amount', 0, 'Milliseconds per response (a page, one image), spent holding a worker'),
  /** Milliseconds spent per record in the response, holding a worker. Default 0. */
  recordLatencyMs: knob('amount', 0, 'Milliseconds per record in the response, spent holding a worker'),
  /** Probability that a data request answers 500 (Django's HTML page). Default 0. */
  rate500: knob('probability', 0, "Probability of Django's HTML 500 page"),
  /** Probability of a 502 from the proxy (HTML). Default 0. */
  rate502: knob('probability', 0, "Probability of the proxy's HTML 502 page"),
  /** Probability of a 504 from the proxy (HTML). Default 0. */
  rate504: knob('probability', 0, "Probability of the proxy's HTML 504 page"),
  /** Probability of a 429 with Retry-After. Default 0. */
  rate429: knob('probability', 0, 'Probability of a 429 with Retry-After'),
  /** Seconds in the Retry-After header of a 429. Default 1. */
  retryAfterSeconds: knob('amount', 1, 'Seconds in the Retry-After header of a 429'),
  /** Probability that a 200 body is cut short and the connection destroyed. Default 0. */
  rateTruncate: knob('probability', 0, 'Probability that a 200 body is cut short and the connection destroyed'),
  /** Probability that the connection is reset without a response. Default 0. */
  rateReset: knob('probability', 0, 'Probability that the connection is reset without a response'),
  /** Probability per data request that records are inserted at random rows before it is answered. Default 0. */
  insertRate: knob('probability', 0, 'Probability per request that records are inserted at random rows'),
  /** Records inserted each time. Default 1. */
  insertCount: knob('count', 1, 'Records inserted each time'),
  /** Probability per data request that records are deleted at random rows before it is answered. Default 0. */
  deleteRate: knob('probability', 0, 'Probability per request that records are deleted at random rows'),
  /** Records deleted each time. Default 1. */
  deleteCount: knob('count', 1, 'Records deleted each time'),
  /**
   * Probability per data request that records are edited in place (modify_date to now, the name suffixed, the
   * collection's modify_date moved) before it is answered. Default 0.
   */
  editRate: knob(
    'probability',
    0,
    'Probability per request that records are edited in place (modify_date now, the name suffixed)',
  ),
  /** Records edited each time. Default 1. */
  editCount: knob('count', 1, 'Records edited each time'),
  /** Probability per list request that the row order is unstable for it (see `unstableOrderMode`). Default 0. */
  unstableOrderRate: knob(
    'probability',
    0,
    'Probability per request that the row order of /api/images/ or /api/collections/ changes',
    'unstable-order',
  ),
  /** Rows moved to the end each time in 'move' mode. Default 10. */
  moveCount: knob('count', 10, 'Rows moved each time in move mode'),
  /** Share of records counted in `count` but dropped from pages (decided per id). Default 0. */
  orphanRate: knob('probability', 0, 'Share of records counted but never served'),
  /** Seed of every fault decision, so runs repeat exactly. Default 1. */
  faultSeed: knob('count', 1, 'Seed of every fault decision'),
  /** Probability that a file response under /media/ is cut short and the connection destroyed. Default 0. */
  fileTruncateRate: knob('probability', 0, 'Probability that a file body under /media/ is cut short'),
  /** Probability that a file response is a whole file of another length than `file_size`. Default 0. */
  fileWrongLengthRate: knob('probability', 0, 'Probability that a file is served at another length than its file_size'),
  /** Probability that a file response has one byte changed. Default 0. */
  fileCorruptRate: knob('probability', 0, 'Probability that a file is served with one byte changed'),
  /** Probability that a file request's Range header is ignored (200, the whole file). Default 0. */
  fileIgnoreRangeRate: knob('probability', 0, 'Probability that a Range header is ignored (200, the whole file)'),
  /** Bytes per second each file response is sent at, at most (one response at a time per connection); 0: no cap. */
  fileBytesPerSecond: knob(
    'amount',
    0,
    'Bytes per second each file response is sent at, at most (0: no cap)',
    'file-rate',
  ),
} as const;

/** The flag of `img-etl serve` that sets the knob `key`. */
export function knobFlag(key: keyof typeof FAULT_KNOBS): string {
  const knob: { flag?: string } = FAULT_KNOBS[key];
  return (
    knob.flag ??
    key
      .replace(/(Ms|Seconds)$/, '')
      .replace(/([a-z])([A-Z0-9])/g, '$1-$2')
      .toLowerCase()
  );
}

/** The numeric fault knobs as options, each documented where FAULT_KNOBS defines it. */
export type NumericFaults = { -readonly [K in keyof typeof FAULT_KNOBS]?: number };

/** Fault knobs; all off by default (see FAULT_KNOBS). */
export interface FaultOptions extends NumericFaults {
  /**
   * How the order changes: 'rotate' serves that request from a scan that starts at a random row and
   * wraps (a synchronized sequential scan); 'move' moves `moveCount` random rows to the end for good
   * (updated rows). Default 'rotate'.
   */
  unstableOrderMode?: 'rotate' | 'move';
  /** Picks the fault for a data request; undefined leaves it to the rates. Default none. */
  plan?: (request: PlannedRequest) => FaultKind | undefined;
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

/** A planted effect's centre and peak when not given: the left amygdala, 2 standard deviations. */
export const PLANTED_DEFAULTS = { at: [-22, -4, -18], z: 2 } as const;

/** The address the service listens on, and the seed of its generated records, when not given. */
export const SERVICE_DEFAULTS = { host: '127.0.0.1', seed: 1 } as const;

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
  /**
   * 'real' lists the records and the collections as the real service does: runs of ascending ids, the runs shuffled,
   * a few rows out of place, drawn from `seed`. Default 'id' (ids rising, a few rows a few places off).
   */
  listOrder?: ListOrder;
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
  ...(Object.fromEntries(
    Object.entries(FAULT_KNOBS).map(([key, knob]) => [key, knob.default]),
  ) as Required<NumericFaults>),
  unstableOrderMode: 'rotate',
};

/** The message's words for what a knob takes. */
const TAKES: Record<KnobValues, string> = {
  probability: 'a probability from 0 to 1',
  count: 'a non-negative integer',
  amount: 'a non-negative number',
};

/** Whether `value` is a value a knob taking `takes` accepts. */
function takes(takes: KnobValues, value: unknown): boolean {
  if (typeof value !== 'number') return false;
  if (takes === 'probability') return value >= 0 && value <= 1;
  return takes === 'count' ? Number.isSafeInteger(value) && value >= 0 : Number.isFinite(value) && value >= 0;
}

/** Merges changes into fault options, checking each value; throws with the bad value in the message. */
export function resolveFaults(base: ResolvedFaults, changes: FaultOptions = {}): ResolvedFaults {
  const next: ResolvedFaults = { ...base };
  for (const [key, value] of Object.entries(changes) as [keyof FaultOptions, unknown][]) {
    if (value === undefined) {
      if (key === 'plan' || key === 'filePlan') delete next[key];
      continue;
    }
    const knob = (FAULT_KNOBS as Record<string, { takes: KnobValues } | undefined>)[key];
    if (knob !== undefined) {
      if (!takes(knob.takes, value))
        throw new Error(`service: ${key} must be ${TAKES[knob.takes]}, got ${shown(value)}`);
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
