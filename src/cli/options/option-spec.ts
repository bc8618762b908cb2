/**
 * An option as the option table defines it: yargs' definition and the values it takes. Every command's options are
 * checked by `checkOptions` against their table, wherever a value came from (the command line, an `IMG_ETL_*`
 * variable, a `--config` file), so a range is written once, in the table, and its message once, here.
 */
import type { Options } from 'yargs';
import { UsageError } from '../usage-error.js';
import { TOKEN } from '../../extract/paging/token.js';
import { camelCase } from './strict-booleans.js';

/** The longest duration option, in seconds: a day (Node's timers hold at most 2^31-1 ms, about 24.8 days). */
export const MAX_SECONDS = 86_400;

/** The values an option takes, when not any value of its type. */
export type Values =
  /** A whole number from `min`, to `max` when given. */
  | { whole: readonly [min: number, max?: number] }
  /** A positive number of `unit`, at most `max` when given. */
  | { positive: string; max?: number }
  /** A number of `unit` (when not empty) from 0. */
  | { from0: string }
  /** A probability, from 0 to 1. */
  | { probability: true }
  /** One of these words (a table writes them as `choices`: defineOptions makes them this). */
  | { oneOf: readonly string[] }
  /** Three numbers, `x,y,z`, of `point` (`MNI millimetres`). */
  | { point: string }
  /** One path, not empty (a folder unless `path` names it otherwise: "file name", "snapshot"). */
  | { path: string }
  /** One token of visible ASCII characters; never quoted back, as it is a secret. */
  | { token: true };

/**
 * An option of the table: yargs' definition, the values it takes, and the option it needs (given only with that one
 * given, or true for a flag; `why` said after).
 */
export type OptionSpec = Options & { values?: Values; needs?: { option: string; why?: string } };

/** A table of options by name, as a command takes them. */
export type OptionTable = Record<string, OptionSpec>;

/**
 * `options` as yargs takes them: each that takes one value (not a boolean, not a list) requiring it, as yargs gives an
 * option without its value its default (`--out --snapshot` would write to ./output); and word `choices` checked by
 * checkOptions as every other value, not by yargs, so that one message names the option and where its value came from.
 */
export function defineOptions<T extends OptionTable>(options: T): T {
  const entries = Object.entries(options).map(([name, { choices, ...option }]) => {
    const single = option.type !== 'boolean' && option.array !== true;
    const words = choices === undefined ? {} : { type: 'string', values: { oneOf: choices as readonly string[] } };
    return [name, { ...option, ...words, ...(single && { requiresArg: true }) }] as const;
  });
  return Object.fromEntries(entries) as T;
}

/** Checks each parsed option of `table` that was given a value against its values; a one-line usage error. */
export function checkOptions(args: Record<string, unknown>, table: OptionTable): void {
  for (const [name, option] of Object.entries(table)) {
    const value = args[camelCase(name)];
    if (value === undefined || value === false) continue;
    if (option.values !== undefined) checkValue(name, option.values, value);
    const needed = option.needs === undefined ? undefined : args[camelCase(option.needs.option)];
    if (option.needs !== undefined && (needed === undefined || needed === false)) {
      const why = option.needs.why === undefined ? '' : ` (${option.needs.why})`;
      throw new UsageError(`--${name}: only with --${option.needs.option}${why}`);
    }
  }
}

/** The usage error for the option `name` whose `value` is not one of `values`, or nothing when it is. */
function checkValue(name: string, values: Values, value: unknown): void {
  const refuse = (expected: string, shown = describeValue(value)) =>
    new UsageError(`--${name}: expected ${expected}, got ${shown}`);
  const number = typeof value === 'number' ? value : NaN;
  if ('whole' in values) {
    const [min, max] = values.whole;
    if (!Number.isSafeInteger(number) || number < min || (max !== undefined && number > max))
      throw refuse(`a whole number from ${min}${max === undefined ? '' : ` to ${max}`}`);
  } else if ('positive' in values) {
    if (!Number.isFinite(number) || number <= 0) throw refuse(`a positive number of ${values.positive}`);
    if (values.max !== undefined && number > values.max)
      throw refuse(`at most ${values.max} ${values.positive}${values.max === MAX_SECONDS ? ' (a day)' : ''}`);
  } else if ('from0' in values) {
    if (!Number.isFinite(number) || number < 0)
      throw refuse(`a number ${values.from0 === '' ? '' : `of ${values.from0} `}from 0`);
  } else if ('probability' in values) {
    if (!(number >= 0 && number <= 1)) throw refuse('a probability from 0 to 1');
  } else if ('oneOf' in values) {
    if (!values.oneOf.includes(value as string)) throw refuse(inWords(values.oneOf), JSON.stringify(value));
  } else if ('point' in values) {
    const xyz = typeof value === 'string' ? value.split(',').map((v) => (v.trim() === '' ? NaN : Number(v))) : [];
    if (xyz.length !== 3 || !xyz.every(Number.isFinite))
      throw refuse(`x,y,z in ${values.point}, e.g. -22,-4,-18`, JSON.stringify(value));
  } else if ('path' in values) {
    if (Array.isArray(value))
      throw new UsageError(
        `--${name}: given more than once (${value.map((v) => JSON.stringify(v)).join(', ')}); give one ${values.path}`,
      );
    if (typeof value !== 'string' || value === '') throw refuse(`a ${values.path}`, JSON.stringify(value));
  } else if (typeof value !== 'string' || !TOKEN.test(value)) {
    const expected = 'one token of visible ASCII characters, without spaces or control characters';
    throw new UsageError(`--${name}: expected ${expected} (not shown here)`);
  }
}

/** Choices in words: `text or json`, `a, b or c`. */
export function inWords(choices: readonly string[]): string {
  return choices.length > 1 ? `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}` : choices.join('');
}

/** A value as a message quotes it: NaN (what yargs makes of `--port many`) as "something that is not a number". */
export function describeValue(value: unknown): string {
  if (typeof value !== 'number') return JSON.stringify(value) ?? String(value);
  return Number.isNaN(value) ? 'something that is not a number' : String(value);
}

/** What an option takes, in a few words, for docs/options.md: `1 to 64`, `> 0 seconds, ≤ 86400`, `text, json`. */
export function valuesText(option: OptionSpec): string {
  const values = option.values;
  if (values === undefined) return '';
  if ('whole' in values)
    return `whole, ${values.whole[0]}${values.whole[1] === undefined ? '+' : ` to ${values.whole[1]}`}`;
  if ('positive' in values) return `> 0 ${values.positive}${values.max === undefined ? '' : `, ≤ ${values.max}`}`;
  if ('from0' in values) return `≥ 0 ${values.from0}`.trim();
  if ('probability' in values) return '0 to 1';
  if ('oneOf' in values) return values.oneOf.join(', ');
  if ('point' in values) return `x,y,z`;
  if ('path' in values) return `a ${values.path}`;
  return 'visible ASCII';
}
