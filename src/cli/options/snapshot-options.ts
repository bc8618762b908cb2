/** What the output options and the list options (`--to`, `--with`) parse into, once the table's checks passed. */
import { FORMATS, type Format } from '../../snapshot/formats.js';
import { UsageError } from '../usage-error.js';
import { OUTPUT_OPTIONS } from './option-table.js';

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
}): OutputChoices {
  return {
    quiet: args.quiet === true,
    logFormat: args.logFormat === 'json' ? 'json' : 'text',
    summary: args.summary === 'json' ? 'json' : 'text',
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
