/**
 * Values yargs would misread, refused before it reads them: a boolean option takes `true` or `false` and nothing
 * else (yargs reads every other value as false, so `--fresh=maybe` would quietly resume), and a number option given
 * empty is empty (yargs reads `--concurrency ""` as 0).
 */
import type { Options } from 'yargs';
import { UsageError } from '../usage-error.js';

/** Refuses, on a command line, a boolean option's value but true or false, and a number option's empty value. */
export function checkGivenArgs(argv: readonly string[], options: Record<string, Options>): void {
  const spellings = new Map<string, string>();
  for (const [name, option] of Object.entries(options))
    for (const s of [name, camelCase(name)]) {
      spellings.set(s, name);
      if (option.type === 'boolean') spellings.set(`no-${s}`, name);
    }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') return; // what follows is not an option
    const [, given, joined] = /^--([^=]+)(?:=(.*))?$/s.exec(argv[i]!) ?? [];
    const name = given === undefined ? undefined : spellings.get(given);
    if (name === undefined) continue;
    const value = joined ?? (options[name]!.type === 'number' ? argv[i + 1] : undefined);
    if (value !== undefined) checkGivenValue(`--${name}`, options[name]!, value);
  }
}

/** Refuses `value`, given as text for `option` (on the command line, in a variable), when yargs would misread it. */
export function checkGivenValue(what: string, option: Options, value: string): void {
  if (option.type === 'boolean' && value !== 'true' && value !== 'false')
    throw new UsageError(`${what}: expected true or false, got ${JSON.stringify(value)}`);
  if (option.type === 'number' && value.trim() === '') throw new UsageError(`${what}: empty; expected a number`);
}

/** `dry-run` → `dryRun`, the other spelling yargs accepts. */
export function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
