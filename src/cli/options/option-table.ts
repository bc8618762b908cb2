/**
 * Every option of every command, each defined once: its name, type, default, the values it takes and its help line.
 * yargs' definitions, the checks of `checkOptions`, the config file's keys, the `IMG_ETL_*` variables and the tables
 * of docs/options.md (`img-etl readme`) all read it. Defaults the library applies too are read from where its policy
 * lives (extract/defaults.ts, the retry policy, the service's FAULT_KNOBS), never written again here.
 */
import { FORMATS } from '../../snapshot/formats.js';
import { CSV_ENGINES, PARQUET_ENGINES } from '../../load/engine-names.js';
import { RETRY_POLICY } from '../../extract/paging/retry-policy.js';
import {
  DEFAULT_BASE_URL,
  DEFAULT_CONCURRENCY,
  DEFAULT_FILES_CONCURRENCY,
  DEFAULT_OUT_DIR,
  DEFAULT_FULL_EVERY_DAYS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_PASSES,
  DEFAULT_MAX_RESUME_AGE_MS,
  DEFAULT_PAGE_SIZE,
  DEFAULT_TIMEOUT_MS,
} from '../../extract/defaults.js';
import { DIFF_FILE_NAMES, DIFF_FORMATS } from '../../diff/diff-formats.js';
import { EXTRA_LINKS } from '../../files/extra-links.js';
import {
  FAULT_KNOBS,
  knobFlag,
  PLANTED_DEFAULTS,
  SERVICE_DEFAULTS,
  type KnobValues,
} from '../../service/service-options.js';
import { defineOptions, MAX_SECONDS, type OptionSpec, type OptionTable, type Values } from './option-spec.js';

/** A duration in seconds: positive, at most a day. */
const SECONDS: Values = { positive: 'seconds', max: MAX_SECONDS };
const MIB = 1024 * 1024;
/** What needs --snapshot, and why a run without it has no use for it. */
const WITH_SNAPSHOT = { option: 'snapshot' } as const;
const READS_WHOLE_LIST = { option: 'snapshot', why: 'without it, every run reads the whole list' } as const;

/** The options of a snapshot run, shared by the default command, `run` and `demo`. */
export const SNAPSHOT_OPTIONS = defineOptions({
  to: {
    type: 'string',
    array: true,
    nargs: 1, // one value per --to: `files --to csv SNAPSHOT` leaves the snapshot to the positional
    default: ['parquet'],
    describe: `Output format, repeatable or comma-separated: ${FORMATS.join(', ')}`,
  },
  'base-url': { type: 'string', default: DEFAULT_BASE_URL, describe: 'Base URL of the Image Listing Service' },
  out: { type: 'string', default: DEFAULT_OUT_DIR, values: { path: 'folder' }, describe: 'Output folder' },
  concurrency: {
    type: 'number',
    default: DEFAULT_CONCURRENCY,
    values: { whole: [1, 64] }, // more than 64 requests at once is a mistake, not a plan
    describe: 'Pages fetched at once (the real service has 4 workers; be polite)',
  },
  'page-size': {
    type: 'number',
    default: DEFAULT_PAGE_SIZE,
    values: { whole: [1, 1000] }, // the service serves at most 1000 records a page
    describe: 'Records per page requested (the service caps it at 1000)',
  },
  'max-attempts': {
    type: 'number',
    default: RETRY_POLICY.attempts,
    values: { whole: [1, 100] },
    describe: 'Attempts per page before the run fails (retries back off exponentially with jitter)',
  },
  token: {
    type: 'string',
    values: { token: true },
    describe:
      'API token, sent as "Authorization: Token …" to the base host only (better: ' +
      'IMG_ETL_TOKEN, kept out of shell history)',
  },
  'retry-delay': {
    type: 'number',
    default: RETRY_POLICY.baseDelayMs / 1000,
    values: SECONDS,
    describe: `Seconds: the first retry waits up to this (full jitter), doubling each attempt up to ${
      RETRY_POLICY.maxDelayMs / 1000
    } s`,
  },
  'max-page-mb': {
    type: 'number',
    default: DEFAULT_MAX_BODY_BYTES / MIB,
    values: { positive: 'MiB' },
    describe: 'Largest page body accepted, in MiB; a larger one is a failed attempt',
  },
  timeout: {
    type: 'number',
    default: DEFAULT_TIMEOUT_MS / 1000,
    values: SECONDS,
    describe: 'Seconds to wait for a response to start, and for each chunk of its body',
  },
  'max-passes': {
    type: 'number',
    default: DEFAULT_MAX_PASSES,
    values: { whole: [1, 100] },
    describe:
      'Passes over the image list at most while records are missing, for a service without the collection ' +
      'endpoints (with them: one pass, then reconciliation)',
  },
  'max-missing': {
    type: 'number',
    default: 0,
    values: { whole: [0] },
    describe: `Records that may be missing before the run exits with code 3 (incomplete)`,
  },
  snapshot: {
    type: 'boolean',
    default: false,
    describe: 'Write each run to {out}/<UTC time>/ and move {out}/latest to it after a successful run',
  },
  keep: {
    type: 'number',
    values: { whole: [1] },
    needs: WITH_SNAPSHOT,
    describe:
      'With --snapshot: keep the newest N complete snapshots, deleting older ones and surplus incomplete ones ' +
      'after every run that writes one (exit 0 or 3)',
  },
  full: {
    type: 'boolean',
    default: false,
    needs: READS_WHOLE_LIST,
    describe:
      'With --snapshot: read the whole image list, even where {out}/latest could be built on (by default a run ' +
      'reads only the collections that changed since it and carries the rest over)',
  },
  'full-every': {
    type: 'number',
    // no default value, so that one given without --snapshot is seen; a run's default is DEFAULT_FULL_EVERY_DAYS
    defaultDescription: String(DEFAULT_FULL_EVERY_DAYS),
    values: { from0: 'days' },
    needs: READS_WHOLE_LIST,
    describe: 'With --snapshot: days after the last full pass when a run makes a full pass again',
  },
  fresh: {
    type: 'boolean',
    default: false,
    describe: 'Discard an unfinished earlier run in --out instead of resuming it',
  },
  'max-resume-age': {
    type: 'number',
    default: DEFAULT_MAX_RESUME_AGE_MS / 3_600_000,
    values: { positive: 'hours' },
    describe:
      'Hours: an unfinished earlier run in --out is resumed only if it started less than this long ago, else discarded',
  },
  'parquet-engine': {
    choices: PARQUET_ENGINES,
    default: PARQUET_ENGINES[0],
    describe: 'Parquet writer: wasm (parquet-wasm: fast, zstd, dictionaries) or parquetjs (parquetjs-lite)',
  },
  'csv-engine': {
    choices: CSV_ENGINES,
    default: CSV_ENGINES[0],
    describe: "CSV writer: builtin (img-etl's own, fast) or csv-stringify (the library); both write the same bytes",
  },
  'neutralise-formulas': {
    type: 'boolean',
    default: true,
    describe:
      "CSV: prefix text starting with = + - @ tab or CR with ' so spreadsheets do not run " +
      'it (--no-neutralise-formulas: off)',
  },
} as const);

/**
 * How a run is shown: progress and errors on stderr, the summary on stdout; and `--dry-run`. Shared by every command
 * that runs a snapshot, and by `files`.
 */
export const OUTPUT_OPTIONS = defineOptions({
  quiet: { type: 'boolean', default: false, describe: 'No progress on stderr, errors only (for cron)' },
  'log-format': {
    type: 'string',
    default: 'text',
    choices: ['text', 'json'],
    describe:
      'stderr: text (a progress bar on a terminal, a line every --progress-interval ' +
      'otherwise) or json (one object per event and line)',
  },
  summary: {
    type: 'string',
    default: 'text',
    choices: ['text', 'json'],
    describe: 'The summary on stdout: text, or json (one document: records, files, sizes, sha256, time, completeness)',
  },
  'progress-interval': {
    type: 'number',
    default: 10,
    values: SECONDS,
    describe: 'Seconds between progress lines when stderr is not a terminal',
  },
  'dry-run': {
    type: 'boolean',
    default: false,
    describe:
      'Read the first page of the image and collections lists only and print the plan: count, pages, ' +
      'estimated time and sizes; writes nothing',
  },
} as const);

/** The options of `img-etl files`: on the command line or in a --config file (the token from IMG_ETL_TOKEN too). */
export const FILES_OPTIONS = defineOptions({
  out: {
    type: 'string',
    demandOption: true,
    values: { path: 'folder' },
    describe: 'Folder the files and files.parquet go to (created if missing)',
  },
  to: {
    ...SNAPSHOT_OPTIONS.to,
    describe: `Formats of the files table, repeatable or comma-separated: ${FORMATS.join(', ')} (files.parquet, …)`,
  },
  where: {
    type: 'string',
    array: true,
    default: [],
    describe:
      'Repeatable, all must hold: "<column> <op> <value>", op = != < <= > >= in (…) like, is null, ' +
      'is not null; text in single quotes',
  },
  concurrency: {
    ...SNAPSHOT_OPTIONS.concurrency,
    default: DEFAULT_FILES_CONCURRENCY,
    describe: 'Files fetched at once',
  },
  layout: {
    type: 'string',
    choices: ['folders', 'nilearn'],
    default: 'folders',
    describe:
      "folders: {out}/<collection_id>/<file name>; nilearn: nilearn's NeuroVault folder, {out}/neurovault/" +
      'collection_<id>/ with the records (pass data_dir={out} to nilearn)',
  },
  'whole-collections': {
    type: 'boolean',
    default: false,
    describe: 'Fetch every image of each collection the selection touches (nilearn takes a collection folder as whole)',
  },
  with: {
    type: 'string',
    array: true,
    default: [],
    describe: `Other links to fetch too, repeatable or comma-separated: ${Object.keys(EXTRA_LINKS).join(', ')}`,
  },
  'base-url': {
    type: 'string',
    describe:
      "The service the files come from; default the snapshot's source. The token goes only to a service named here " +
      'or to https://neurovault.org',
  },
  token: SNAPSHOT_OPTIONS.token,
  timeout: SNAPSHOT_OPTIONS.timeout,
  'max-attempts': {
    ...SNAPSHOT_OPTIONS['max-attempts'],
    describe: 'Attempts per file before it is reported (retries back off exponentially with jitter)',
  },
  'retry-delay': SNAPSHOT_OPTIONS['retry-delay'],
  verify: {
    type: 'boolean',
    default: false,
    describe:
      'Re-hash every file kept from disk (by default only those whose size or mtime differ from files.parquet) ' +
      'and fetch again those that changed',
  },
  ...OUTPUT_OPTIONS,
  'dry-run': {
    type: 'boolean',
    default: false,
    describe: 'Print how many files and bytes the selection holds and an estimated time; fetch nothing',
  },
  summary: { ...OUTPUT_OPTIONS.summary, describe: 'The summary on stdout: text or json' },
} as const);

/** The options of `img-etl diff`. */
export const DIFF_OPTIONS = defineOptions({
  out: {
    type: 'string',
    default: 'output/diff',
    values: { path: 'folder' },
    describe:
      `Folder to write ${Object.values(DIFF_FILE_NAMES).join(' and ')} into, and collections-diff.* ` +
      'when both snapshots hold collections (created if missing; never a snapshot folder)',
  },
  to: {
    type: 'string',
    array: true,
    nargs: 1, // one value per --to: `diff --to csv OLD NEW` leaves the snapshots to the positionals
    default: ['parquet'],
    describe: `Diff format, repeatable or comma-separated: ${DIFF_FORMATS.join(', ')}`,
  },
} as const);

/** The options of `img-etl report`. */
export const REPORT_OPTIONS = defineOptions({
  against: {
    type: 'string',
    values: { path: 'snapshot' },
    describe: 'An older snapshot, named the same ways: what changed since',
  },
  out: {
    type: 'string',
    default: 'report.html',
    values: { path: 'file name' },
    describe: 'The page to write; the numbers go beside it with .json for .html',
  },
} as const);

/** The options of `img-etl demo`. */
export const DEMO_OPTIONS = defineOptions({
  records: {
    type: 'number',
    default: 5000,
    values: { whole: [0] },
    describe: 'Generated records served (beside the 59 real ones of a checkout of the repository)',
  },
  out: {
    type: 'string',
    default: 'output/demo',
    values: { path: 'folder' },
    describe: 'The --snapshot folder: each run into <UTC time>/, latest pointing at the newest',
  },
  to: { type: 'string', array: true, default: ['parquet', 'arrow', 'csv'], describe: 'Formats to write' },
  rows: { type: 'number', default: 5, values: { whole: [1, 1000] }, describe: 'Rows to print' },
} as const);

/** Generated records `serve` serves when neither --data nor --records is given. */
export const DEFAULT_SERVED_RECORDS = 10_000;

/** The values each kind of fault knob takes, as the command line checks them. */
const KNOB_VALUES: Record<KnobValues, Values> = {
  probability: { probability: true },
  count: { whole: [0] },
  amount: { from0: '' },
};

/** The options of the service itself; its fault knobs follow, from FAULT_KNOBS. */
export const SERVICE_OPTIONS = defineOptions({
  host: { type: 'string', default: SERVICE_DEFAULTS.host, describe: 'Address to listen on' },
  port: {
    type: 'number',
    default: 8000,
    values: { whole: [0, 65535] },
    describe: 'Port to listen on (0: any free port)',
  },
  data: {
    type: 'string',
    describe: 'Serve the records of this NDJSON file, in file order (URLs re-based on the served origin)',
  },
  records: {
    type: 'number',
    values: { whole: [0] },
    describe: `Generated records (default ${DEFAULT_SERVED_RECORDS}, or 0 with --data; with --data they are mixed in)`,
  },
  seed: {
    type: 'number',
    default: SERVICE_DEFAULTS.seed,
    values: { whole: [0] },
    describe: 'Seed of the generated records (same seed and count: same bytes)',
  },
  'list-order': {
    choices: ['id', 'real'],
    default: 'id',
    describe: 'id, or real: records and collections listed as runs of ascending ids, the runs shuffled, a few moved',
  },
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
  'unstable-order-mode': {
    choices: ['rotate', 'move'],
    default: 'rotate',
    describe: 'rotate: scan starts at a random row; move: rows move to the end',
    group: 'Faults:',
  },
} as const);

/** The options of the planted effect, shown after the faults. */
export const PLANTED_OPTIONS = defineOptions({
  'plant-paradigm': {
    type: 'string',
    describe:
      "Serve every image as a map of noise on nilearn's MNI152 2 mm grid; the group-level Z maps of this Cognitive " +
      'Atlas paradigm id (cognitive_paradigm_cogatlas_id) carry a planted effect',
    group: 'Planted effect:',
  },
  'plant-at': {
    type: 'string',
    values: { point: 'MNI millimetres' },
    needs: { option: 'plant-paradigm' },
    describe: `The effect's centre, x,y,z in MNI mm (default ${PLANTED_DEFAULTS.at.join(',')})`,
    group: 'Planted effect:',
  },
  'plant-z': {
    type: 'number',
    default: PLANTED_DEFAULTS.z,
    values: { from0: '' },
    describe: "The effect's peak in each map, in standard deviations of the noise",
    group: 'Planted effect:',
  },
} as const);

/** The options of `img-etl serve`: the service's, a flag for each of its fault knobs, then the planted effect's. */
export const SERVE_OPTIONS: OptionTable = {
  ...SERVICE_OPTIONS,
  ...Object.fromEntries(
    (Object.keys(FAULT_KNOBS) as (keyof typeof FAULT_KNOBS)[]).map((key) => {
      const knob = FAULT_KNOBS[key];
      const group = key.startsWith('file') ? 'File faults:' : 'Faults:';
      const spec: OptionSpec = { type: 'number', default: knob.default, describe: knob.describe, group };
      return [knobFlag(key), { ...spec, values: KNOB_VALUES[knob.takes], requiresArg: true }];
    }),
  ),
  ...PLANTED_OPTIONS,
};

/** Each command's options, as docs/options.md lists them; `env`: its options are read from IMG_ETL_* variables. */
export const COMMAND_OPTIONS: readonly { command: string; options: OptionTable; env: boolean; config: boolean }[] = [
  { command: 'img-etl, img-etl run', options: { ...SNAPSHOT_OPTIONS, ...OUTPUT_OPTIONS }, env: true, config: true },
  { command: 'img-etl files', options: FILES_OPTIONS, env: false, config: true },
  { command: 'img-etl diff', options: DIFF_OPTIONS, env: false, config: false },
  { command: 'img-etl report', options: REPORT_OPTIONS, env: false, config: false },
  { command: 'img-etl demo', options: DEMO_OPTIONS, env: false, config: false },
  { command: 'img-etl serve', options: SERVE_OPTIONS, env: false, config: false },
];

/** Every command's options by name (a name means the same in each), for the checks made before yargs parses. */
export const ALL_OPTIONS = Object.assign({}, ...COMMAND_OPTIONS.map((c) => c.options)) as OptionTable;
