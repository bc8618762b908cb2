/**
 * Where a refused option's value came from when the command line does not give it: an `IMG_ETL_*` variable or the
 * `--config` file. A message naming `--concurrency` alone sends its reader to a command line that has none.
 */
import { envVariable } from './env-variables.js';
import { readRegularFileSync } from '../../load/file-system/read-regular-file.js';
import { camelCase } from './strict-booleans.js';
import { UsageError } from '../usage-error.js';

/** The commands that read `IMG_ETL_*` variables: the snapshot's (no command, or `run`). */
function readsEnv(argv: readonly string[]): boolean {
  const first = argv[0];
  return first === undefined || first.startsWith('-') || first === 'run';
}

/** Whether `argv` gives the option `name` (`--name`, `--name=…`, `--no-name`, or in camelCase). */
function onCommandLine(name: string, argv: readonly string[]): boolean {
  const spellings = [name, camelCase(name)].flatMap((n) => [`--${n}`, `--no-${n}`]);
  return argv.some((arg) => spellings.some((s) => arg === s || arg.startsWith(`${s}=`)));
}

/** The --config file's path: on the command line, else (a snapshot command) IMG_ETL_CONFIG. */
function configPath(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const at = argv.findIndex((arg) => arg === '--config' || arg.startsWith('--config='));
  if (at >= 0) return argv[at]!.startsWith('--config=') ? argv[at]!.slice('--config='.length) : argv[at + 1];
  return readsEnv(argv) ? env['IMG_ETL_CONFIG'] : undefined;
}

/** Whether the config file at `path` (read and checked before the option was) sets `name`. */
function configSets(path: string, name: string): boolean {
  try {
    const text = readRegularFileSync(path, { maxBytes: 1024 * 1024, followLink: true }).toString('utf8');
    const value = JSON.parse(text) as Record<string, unknown>;
    return Object.hasOwn(value, name) || Object.hasOwn(value, camelCase(name));
  } catch {
    return false;
  }
}

/**
 * Where the value of the option `name` came from when not from the command line (which wins over both, as the
 * variables win over the file): `IMG_ETL_CONCURRENCY`, `--config img-etl.json`; undefined for the command line.
 */
function sourceOf(name: string, argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  if (onCommandLine(name, argv)) return undefined;
  const variable = envVariable(name);
  if (readsEnv(argv) && env[variable] !== undefined) return variable;
  const config = configPath(argv, env);
  return config !== undefined && name !== 'config' && configSets(config, name) ? `--config ${config}` : undefined;
}

/**
 * `err`, a usage error naming an option (`--concurrency: expected …`) whose value `argv` does not give, with where the
 * value came from after the option's name (`--concurrency, set by IMG_ETL_CONCURRENCY: expected …`); any other error
 * as it is.
 */
export function withOptionSource(err: unknown, argv: readonly string[], env: NodeJS.ProcessEnv = process.env): unknown {
  if (!(err instanceof UsageError)) return err;
  const name = /^--([a-z][a-z0-9-]*):/.exec(err.message)?.[1];
  const source = name === undefined ? undefined : sourceOf(name, argv, env);
  if (source === undefined) return err;
  const message = `--${name}, set by ${source}:${err.message.slice(`--${name}:`.length)}`;
  return new UsageError(message, err.cause);
}
