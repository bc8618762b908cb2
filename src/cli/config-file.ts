import { readFileSync } from 'node:fs';
import type { Argv } from 'yargs';
import { UsageError } from './usage-error.js';

/** Lets a snapshot command take its options from IMG_ETL_* variables and a --config JSON file too (the command line wins). */
export function withEnvAndConfig<T>(y: Argv<T>): Argv<T> {
  return y.env('IMG_ETL').config('config', 'A JSON file of options, named as on the command line (e.g. {"to": ["parquet", "csv"], "out": "snap"})', readConfigFile);
}

/** Reads a --config file: a JSON object of options; a one-line usage error otherwise. */
function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--config: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--config: ${path} is not valid JSON (${(err as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`--config: ${path} must hold a JSON object of options`);
  return value as Record<string, unknown>;
}

