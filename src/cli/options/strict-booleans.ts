/**
 * Boolean options take `true` or `false` and nothing else. yargs reads every other value as false, so `--fresh=maybe`
 * or `IMG_ETL_FRESH=1` would quietly resume instead of starting afresh; these checks refuse such a value first.
 */
import type { Options } from 'yargs';
import { UsageError } from '../usage-error.js';

/** The names of the boolean options in a table of options, as declared (kebab-case). */
export function booleanNames(options: Record<string, Options>): string[] {
  return Object.entries(options).flatMap(([name, option]) => (option.type === 'boolean' ? [name] : []));
}

/** Refuses `--name=value` or `--no-name=value` on a command line for a boolean option and a value but true or false. */
export function checkBooleanArgs(argv: readonly string[], names: readonly string[]): void {
  const spellings = new Map<string, string>();
  for (const name of names) for (const s of [name, camelCase(name)]) spellings.set(s, name).set(`no-${s}`, name);
  for (const arg of argv) {
    if (arg === '--') return; // what follows is not an option
    const [, given, value] = /^--([^=]+)=(.*)$/s.exec(arg) ?? [];
    const name = given === undefined ? undefined : spellings.get(given);
    if (name !== undefined && !isBooleanWord(value!)) throw notBoolean(`--${name}`, value!);
  }
}

/** Refuses an environment variable `PREFIX_NAME` of a boolean option whose value is not true or false. */
export function checkBooleanEnv(env: NodeJS.ProcessEnv, prefix: string, names: readonly string[]): void {
  for (const name of names) {
    const variable = `${prefix}_${name.toUpperCase().replace(/-/g, '_')}`;
    const value = env[variable];
    if (value !== undefined && !isBooleanWord(value)) throw notBoolean(variable, value);
  }
}

/** `dry-run` → `dryRun`, the other spelling yargs accepts. */
export function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function notBoolean(what: string, value: string): UsageError {
  return new UsageError(`${what}: expected true or false, got ${JSON.stringify(value)}`);
}

function isBooleanWord(value: string): boolean {
  return value === 'true' || value === 'false';
}
