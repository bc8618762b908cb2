/** What the output options and the list options (`--to`, `--with`) parse into, once the table's checks passed. */
import { FORMATS, type Format } from '../../snapshot/formats.js';
import { UsageError } from '../usage-error.js';
import { OUTPUT_OPTIONS } from './option-table.js';

/** What OUTPUT_OPTIONS parse into: quiet, log and summary as text or JSON, the progress interval, plan only. */
export type OutputChoices = ReturnType<typeof outputChoicesFrom>;

/**
 * What the parsed OUTPUT_OPTIONS ask for (each command checks them with its other options, inside its error reporting:
 * a bad value is told in the log format asked for, or as text when that is the bad one).
 */
export function outputChoicesFrom(args: {
  quiet?: boolean;
  logFormat?: string;
  summary?: string;
  progressInterval?: number;
  dryRun?: boolean;
}) {
  return {
    quiet: args.quiet === true,
    logFormat: args.logFormat === 'json' ? ('json' as const) : ('text' as const),
    summary: args.summary === 'json' ? ('json' as const) : ('text' as const),
    progressIntervalMs: (args.progressInterval ?? OUTPUT_OPTIONS['progress-interval'].default) * 1000,
    dryRun: args.dryRun === true,
  };
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
