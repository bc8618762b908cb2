import yargs from 'yargs';
import { UsageError } from './usage-error.js';
import { serveCommand } from './serve-command.js';
import { demoCommand } from './demo-command.js';
import { readmeCommand } from './readme-command.js';
import { snapshotCommand } from './snapshot-command.js';
import { diffCommand } from './diff-command.js';
import { reportCommand } from './report-command.js';
import { filesCommand } from './files-command.js';
import { pipelineNames } from './load-pipeline.js';
import { runCommand } from './run-command.js';
import { VERSION } from '../run/tool.js';
import { OUTPUT_OPTIONS, SNAPSHOT_OPTIONS } from './snapshot-options.js';
import { booleanNames, checkBooleanArgs } from './strict-booleans.js';

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
    .command(reportCommand(setExitCode))
    .command(filesCommand(setExitCode))
    .command(runCommand(setExitCode, await pipelineNames()))
    .command(readmeCommand())
    .strict()
    .help()
    .version(VERSION)
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((msg, err) => {
      // yargs' own errors (bad config file, parse errors) are usage errors; a command's errors pass through.
      if (err === undefined || err === null || err.name === 'YError')
        throw new UsageError({ message: err?.message ?? msg });
      throw err;
    });
  try {
    // yargs reads --fresh=yes as false
    checkBooleanArgs(argv, booleanNames({ ...SNAPSHOT_OPTIONS, ...OUTPUT_OPTIONS }));
    await parser.parseAsync();
  } catch (err) {
    process.stderr.write(`img-etl: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
  return exitCode;
}
