import { readFileSync } from 'node:fs';
import yargs from 'yargs';
import { UsageError } from './usage-error.js';
import { serveCommand } from './serve-command.js';
import { demoCommand } from './demo-command.js';
import { readmeCommand } from './readme-command.js';
import { snapshotCommand } from './snapshot-command.js';
import { diffCommand } from './diff-command.js';
import { pipelineNames } from './load-pipeline.js';
import { runCommand } from './run-command.js';

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

/** Runs the img-etl command line with the given arguments and resolves to the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  let exitCode = 0;
  const setExitCode = (code: number) => (exitCode = code);
  const parser = yargs(argv)
    .scriptName('img-etl')
    .command(snapshotCommand(setExitCode))
    .command(serveCommand(setExitCode))
    .command(demoCommand(setExitCode))
    .command(diffCommand(setExitCode))
    .command(runCommand(setExitCode, await pipelineNames()))
    .command(readmeCommand())
    .env('IMG_ETL')
    .config('config', 'A JSON file of options, named as on the command line (e.g. {"to": ["parquet", "csv"], "out": "snap"})', readConfigFile)
    .strict()
    .help()
    .version(false)
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((msg, err) => {
      // yargs' own errors (bad config file, parse errors) are usage errors; a command's errors pass through.
      if (err === undefined || err === null || err.name === 'YError') throw new UsageError(err?.message ?? msg);
      throw err;
    });
  try {
    await parser.parseAsync();
  } catch (err) {
    process.stderr.write(`img-etl: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
  return exitCode;
}
