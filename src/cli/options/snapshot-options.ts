/** The options of a snapshot run and of how it is shown, shared by every command that runs a snapshot. */
import type { Options } from 'yargs';
import { FORMATS, type Format } from '../../snapshot/formats.js';
import { UsageError } from '../usage-error.js';
import { DEFAULT_BASE_URL, DEFAULT_CONCURRENCY, DEFAULT_PAGE_SIZE } from '../../extract/defaults.js';
import { CSV_ENGINES, PARQUET_ENGINES } from '../../load/engine-names.js';
import { RETRY_POLICY } from '../../extract/paging/retry-policy.js';
import { TOKEN } from '../../extract/paging/token.js';

/**
 * `options` with each that takes one value (not a boolean, not a list) requiring it: yargs gives an option without its
 * value its default, so `--out --snapshot` would write to ./output and `--page-size --quiet` ask for 1000.
 */
export function valued<T extends Record<string, Options>>(options: T): T {
  const entries = Object.entries(options).map(([name, option]) => {
    const single = option.type !== 'boolean' && option.array !== true;
    return [name, single ? { ...option, requiresArg: true } : option] as const;
  });
  return Object.fromEntries(entries) as T;
}

/** The options of a snapshot run, shared by the default command, `run` and `demo`. */
export const SNAPSHOT_OPTIONS = valued({
  to: {
    type: 'string',
    array: true,
    nargs: 1, // one value per --to: `files --to csv SNAPSHOT` leaves the snapshot to the positional
    default: ['parquet'],
    describe: `Output format, repeatable or comma-separated: ${FORMATS.join(', ')}`,
  },
  'base-url': { type: 'string', default: DEFAULT_BASE_URL, describe: 'Base URL of the Image Listing Service' },
  out: { type: 'string', default: 'output', describe: 'Output folder' },
  concurrency: {
    type: 'number',
    default: DEFAULT_CONCURRENCY,
    describe: 'Pages fetched at once (the real service has 4 workers; be polite)',
  },
  'page-size': {
    type: 'number',
    default: DEFAULT_PAGE_SIZE,
    describe: 'Records per page requested (the service caps it at 1000)',
  },
  'max-attempts': {
    type: 'number',
    default: RETRY_POLICY.attempts,
    describe: 'Attempts per page before the run fails (retries back off exponentially with jitter)',
  },
  token: {
    type: 'string',
    describe:
      'API token, sent as "Authorization: Token …" to the base host only (better: ' +
      'IMG_ETL_TOKEN, kept out of shell history)',
  },
  'retry-delay': {
    type: 'number',
    default: RETRY_POLICY.baseDelayMs / 1000,
    describe: `Seconds: the first retry waits up to this (full jitter), doubling each attempt up to ${
      RETRY_POLICY.maxDelayMs / 1000
    } s`,
  },
  'max-page-mb': {
    type: 'number',
    default: 64,
    describe: 'Largest page body accepted, in MiB; a larger one is a failed attempt',
  },
  timeout: {
    type: 'number',
    default: 30,
    describe: 'Seconds to wait for a response to start, and for each chunk of its body',
  },
  'max-passes': {
    type: 'number',
    default: 3,
    describe:
      'Passes over the image list at most while records are missing, for a service without the collection ' +
      'endpoints (with them: one pass, then reconciliation)',
  },
  'max-missing': {
    type: 'number',
    default: 0,
    describe: `Records that may be missing before the run exits with code 3 (incomplete)`,
  },
  snapshot: {
    type: 'boolean',
    default: false,
    describe: 'Write each run to {out}/<UTC time>/ and move {out}/latest to it after a successful run',
  },
  keep: {
    type: 'number',
    describe:
      'With --snapshot: keep the newest N complete snapshots, deleting older ones and surplus incomplete ones ' +
      'after every run that writes one (exit 0 or 3)',
  },
  full: {
    type: 'boolean',
    default: false,
    describe:
      'With --snapshot: read the whole image list, even where {out}/latest could be built on (by default a run ' +
      'reads only the collections that changed since it and carries the rest over)',
  },
  'full-every': {
    type: 'number',
    // no default value, so that one given without --snapshot is seen; a run's default is DEFAULT_FULL_EVERY_DAYS
    defaultDescription: '7',
    describe: 'With --snapshot: days after the last full pass when a run makes a full pass again',
  },
  fresh: {
    type: 'boolean',
    default: false,
    describe: 'Discard an unfinished earlier run in --out instead of resuming it',
  },
  'max-resume-age': {
    type: 'number',
    default: 12,
    describe:
      'Hours: an unfinished earlier run in --out is resumed only if it started less than this long ago, else discarded',
  },
  'parquet-engine': {
    choices: PARQUET_ENGINES,
    default: PARQUET_ENGINES[0],
    describe: 'Parquet writer: parquet-wasm (fast, zstd, dictionaries) or parquetjs-lite',
  },
  'csv-engine': {
    choices: CSV_ENGINES,
    default: CSV_ENGINES[0],
    describe: "CSV writer: img-etl's own formatter (fast) or the csv-stringify library; both write the same bytes",
  },
  'neutralise-formulas': {
    type: 'boolean',
    default: true,
    describe:
      "CSV: prefix text starting with = + - @ tab or CR with ' so spreadsheets do not run " +
      'it (--no-neutralise-formulas: off)',
  },
} as const satisfies Record<string, Options>);

/**
 * How a run is shown: progress and errors on stderr, the summary on stdout; and `--dry-run`. Shared by every command
 * that runs a snapshot.
 */
export const OUTPUT_OPTIONS = valued({
  quiet: { type: 'boolean', default: false, describe: 'No progress on stderr, errors only (for cron)' },
  'log-format': {
    type: 'string',
    default: 'text',
    describe:
      'stderr: text (a progress bar on a terminal, a line every --progress-interval ' +
      'otherwise) or json (one object per event and line)',
  },
  summary: {
    type: 'string',
    default: 'text',
    describe: 'The summary on stdout: text, or json (one document: records, files, sizes, sha256, time, completeness)',
  },
  'progress-interval': {
    type: 'number',
    default: 10,
    describe: 'Seconds between progress lines when stderr is not a terminal',
  },
  'dry-run': {
    type: 'boolean',
    default: false,
    describe:
      'Read the first page of the image and collections lists only and print the plan: count, pages, ' +
      'estimated time and sizes; writes nothing',
  },
} as const satisfies Record<string, Options>);

/** What OUTPUT_OPTIONS parse into. */
export interface OutputChoices {
  /** Errors only on stderr. */
  quiet: boolean;
  /** stderr as text or JSON lines. */
  logFormat: 'text' | 'json';
  /** stdout summary as text or JSON. */
  summary: 'text' | 'json';
  /** Milliseconds between plain progress lines. */
  progressIntervalMs: number;
  /** Plan only. */
  dryRun: boolean;
}

/** Checks the parsed OUTPUT_OPTIONS, failing with a one-line message on a bad value. */
export function outputChoicesFrom(args: {
  quiet?: boolean;
  logFormat?: string;
  summary?: string;
  progressInterval?: number;
  dryRun?: boolean;
}): OutputChoices {
  return {
    quiet: args.quiet === true,
    logFormat: oneOf('log-format', args.logFormat ?? 'text', ['text', 'json'] as const),
    summary: oneOf('summary', args.summary ?? 'text', ['text', 'json'] as const),
    progressIntervalMs: positiveSeconds('progress-interval', args.progressInterval ?? 10) * 1000,
    dryRun: args.dryRun === true,
  };
}

/** A token for the service, if given; a usage error when it is not one token of visible ASCII characters. */
export function tokenOption(token: unknown): string | undefined {
  if (token === undefined || (typeof token === 'string' && TOKEN.test(token))) return token;
  // Never quoted back: a malformed token is still a secret.
  const expected = 'one token of visible ASCII characters, without spaces or control characters';
  throw new UsageError(`--token: expected ${expected} (not shown here)`);
}

/** Checks a value against its choices; throws a one-line error naming them. */
export function oneOf<T extends string>(name: string, value: unknown, choices: readonly T[]): T {
  if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
  const expected = choices.length > 1 ? `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}` : choices.join('');
  throw new UsageError(`--${name}: expected ${expected}, got ${JSON.stringify(value)}`);
}

/** Parses `--to` values (repeated and/or comma-separated) into formats of `choices`; a one-line error for none. */
export function parseFormats<T extends string = Format>(
  values: readonly string[],
  choices: readonly T[] = FORMATS as readonly string[] as readonly T[],
  what = 'format',
): T[] {
  const lower = values.map((v) => v.toLowerCase());
  const formats = parseChoices('to', lower, choices, what);
  if (formats.length === 0) throw new UsageError(`--to: no format given; choose from ${choices.join(', ')}`);
  return formats;
}

/** An option's values (repeated and/or comma-separated), each once; a one-line error for one not of `choices`. */
export function parseChoices<T extends string>(
  name: string,
  values: readonly string[],
  choices: readonly T[],
  what: string,
): T[] {
  const given = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  const unknown = given.find((v) => !(choices as readonly string[]).includes(v));
  if (unknown !== undefined)
    throw new UsageError(`--${name}: unknown ${what} ${JSON.stringify(unknown)}; choose from ${choices.join(', ')}`);
  return [...new Set(given)] as T[];
}

/** Checks an option naming one path, a folder unless `what` says otherwise (`--out`): one non-empty path. */
export function folderOption(name: string, value: unknown, what = 'folder'): string {
  if (Array.isArray(value)) {
    const given = value.map((v) => JSON.stringify(v)).join(', ');
    throw new UsageError(`--${name}: given more than once (${given}); give one ${what}`);
  }
  if (typeof value === 'string' && value !== '') return value;
  throw new UsageError(`--${name}: expected a ${what}, got ${JSON.stringify(value)}`);
}

/**
 * The largest value of each whole-number option, the one place it is written: the service serves at most 1000 records
 * a page; more than 64 requests at once, 100 attempts or 100 passes is a mistake, not a plan.
 */
export const MAX = { concurrency: 64, 'page-size': 1000, 'max-attempts': 100, 'max-passes': 100, rows: 1000 } as const;

/** Checks a whole-number option: a positive integer from 1 to its MAX. */
export function positiveInt(name: keyof typeof MAX, value: number): number {
  const max = MAX[name];
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new UsageError(`--${name}: expected a whole number from 1 to ${max}, got ${describeNumber(value)}`);
  return value;
}

/** The longest duration option, in seconds: a day (Node's timers hold at most 2^31-1 ms, about 24.8 days). */
export const MAX_SECONDS = 86_400;

/** Checks a duration option in seconds: a positive number, at most MAX_SECONDS. */
export function positiveSeconds(name: string, value: number): number {
  positiveNumber(name, value, 'seconds');
  if (value <= MAX_SECONDS) return value;
  throw new UsageError(`--${name}: expected at most ${MAX_SECONDS} seconds (a day), got ${value}`);
}

/** Checks an option that is a positive amount of `unit`. */
export function positiveNumber(name: string, value: number, unit: string): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new UsageError(`--${name}: expected a positive number of ${unit}, got ${describeNumber(value)}`);
  return value;
}

/** A number as a message quotes it: NaN (what yargs makes of `--port many`) as "something that is not a number". */
export function describeNumber(value: number): string {
  return Number.isNaN(value) ? 'something that is not a number' : String(value);
}
