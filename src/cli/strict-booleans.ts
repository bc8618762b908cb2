/**
 * Boolean options take `true` or `false` and nothing else. yargs reads every other value as false, so `--fresh=maybe`
 * or `IMG_ETL_FRESH=1` would quietly resume instead of starting afresh; these checks refuse such a value first.
 */
import type { Options } from 'yargs';
import { UsageError } from './usage-error.js';

/** The names of the boolean options in a table of options, as declared (kebab-case). */
export function booleanNames(options: Record<string, Options>): string[] {
  return Object.entries(options).flatMap(([name, option]) => (option.type === 'boolean' ? [name] : []));
}

/** Refuses `--name=value` or `--no-name=value` on a command line when `name` is a boolean option and value is not true or false. */
export function checkBooleanArgs(argv: readonly string[], names: readonly string[]): void {
  const spellings = new Map(names.flatMap((name) => [name, camelCase(name)].flatMap((s) => [[s, name], [`no-${s}`, name]] as const)));
  for (const arg of argv) {
    if (arg === '--') return; // what follows is not an option
    const match = /^--([^=]+)=(.*)$/s.exec(arg);
    const name = match === null ? undefined : spellings.get(match[1]!);
    if (name !== undefined && !isBooleanWord(match![2]!)) throw new UsageError(`--${name}: expected true or false, got ${JSON.stringify(match![2])}`);
  }
}

/** Refuses an environment variable `PREFIX_NAME` of a boolean option whose value is not true or false. */
export function checkBooleanEnv(env: NodeJS.ProcessEnv, prefix: string, names: readonly string[]): void {
  for (const name of names) {
    const variable = `${prefix}_${name.toUpperCase().replace(/-/g, '_')}`;
    const value = env[variable];
    if (value !== undefined && !isBooleanWord(value)) throw new UsageError(`${variable}: expected true or false, got ${JSON.stringify(value)}`);
  }
}

/** `dry-run` → `dryRun`, the other spelling yargs accepts. */
export function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function isBooleanWord(value: string): boolean {
  return value === 'true' || value === 'false';
}
