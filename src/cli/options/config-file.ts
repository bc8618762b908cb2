/** Options from a --config JSON file and from IMG_ETL_* variables; the command line wins over both. */
import type { Argv, Options } from 'yargs';
import { nearestName } from '../../text/nearest-name.js';
import { readRegularFileSync, whyUnreadable } from '../../load/file-system/read-regular-file.js';
import { camelCase } from './strict-booleans.js';
import { checkEnvVariables, ENV_PREFIX } from './env-variables.js';
import { UsageError } from '../usage-error.js';

/** The --config example of a snapshot command's help: options every snapshot command has. */
const SNAPSHOT_EXAMPLE = '{"to": ["csv"], "out": "snap"}';

/**
 * Lets a snapshot command take its options from IMG_ETL_* variables and a --config JSON file too (the command line
 * wins). `options` are the command's options: a config file may set those and nothing else, booleans as true or false.
 */
export function withEnvAndConfig<T>(y: Argv<T>, options: Record<string, Options>): Argv<T> {
  return withConfig(y.env(ENV_PREFIX), options, SNAPSHOT_EXAMPLE).middleware(
    () => checkEnvVariables(process.env, options),
    true,
  );
}

/**
 * Lets a command take its options from a --config JSON file too (the command line wins), but not from IMG_ETL_*
 * variables, which are a snapshot's (IMG_ETL_OUT, IMG_ETL_CONCURRENCY mean the snapshot's folder and connections).
 * `example`, shown in --help, must be a file this command accepts: only its own options.
 */
export function withConfig<T>(y: Argv<T>, options: Record<string, Options>, example: string): Argv<T> {
  const describe = `A JSON file of options, named as on the command line (e.g. ${example})`;
  return y.config('config', describe, (path: string) => readConfigFile(path, options));
}

/** Reads a --config file: a JSON object of the command's options; a one-line usage error otherwise. */
function readConfigFile(path: string, options: Record<string, Options>): Record<string, unknown> {
  const text = readConfigText(path);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--config: ${path} is not valid JSON (${(err as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`--config: ${path} must hold a JSON object of options`);
  const known = new Map(Object.keys(options).flatMap((name) => [name, camelCase(name)].map((key) => [key, name])));
  for (const [key, v] of Object.entries(value)) {
    const refuse = (reason: string) => new UsageError(`--config: ${path} sets ${JSON.stringify(key)}${reason}`);
    // yargs would ignore a "config" key, and read "extends" as another file to load: one file, no chains.
    if (key === 'config') throw refuse(': a config file cannot name another one');
    const name = known.get(key);
    if (name === undefined) {
      const nearest = nearestName(key, [...known.keys()]);
      // as --help and the docs spell it ("base-url"), or in camelCase to a file written so ("maxPasses")
      const spelled = (name: string) => (/[A-Z]/.test(key) ? camelCase(name) : name);
      const hint = nearest === undefined ? '' : `: did you mean "${spelled(known.get(nearest)!)}"?`;
      throw refuse(`, which is not an option of this command${hint}`);
    }
    const expected = wrongType(options[name]!, v);
    if (expected !== undefined) throw refuse(` to ${JSON.stringify(v)}; expected ${expected}`);
  }
  return value as Record<string, unknown>;
}

/**
 * What an option takes when `value` is not of its JSON type, else undefined: yargs would read `true` as the number 1
 * (`"keep": true`, keeping one snapshot) and a list holding a number would fail as a crash, not a usage error.
 */
function wrongType(option: Options, value: unknown): string | undefined {
  if (option.type === 'boolean') return typeof value === 'boolean' ? undefined : 'true or false';
  // a number may be written as on the command line ("1e3"): yargs reads it, and the command checks the number
  if (option.type === 'number')
    return typeof value === 'number' || (typeof value === 'string' && value.trim() !== '') ? undefined : 'a number';
  if (option.array === true) {
    const texts = typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
    return texts ? undefined : 'text or a list of texts';
  }
  return typeof value === 'string' ? undefined : 'text';
}

/** The most a config file may hold: 1 MiB. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * A config file's text, once the opened file is found to be a regular file of at most MAX_CONFIG_BYTES (see
 * readRegularFileSync: a FIFO or /dev/zero is refused before a byte is read; a link to a config file is followed).
 * A one-line usage error otherwise.
 */
function readConfigText(path: string): string {
  const sizeProblem = (size: number) =>
    size > MAX_CONFIG_BYTES ? `is ${size} bytes; a config file holds at most ${MAX_CONFIG_BYTES}` : undefined;
  try {
    return readRegularFileSync(path, { maxBytes: MAX_CONFIG_BYTES, sizeProblem, followLink: true }).toString('utf8');
  } catch (err) {
    throw new UsageError(`--config: ${whyUnreadable(path, err)}`);
  }
}
