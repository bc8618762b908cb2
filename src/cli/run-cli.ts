import yargs from 'yargs';
import { serveCommand } from './serve-command.js';
import { snapshotCommand } from './snapshot-command.js';

/** Runs the img-etl command line with the given arguments and resolves to the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  let exitCode = 0;
  const setExitCode = (code: number) => (exitCode = code);
  const parser = yargs(argv)
    .scriptName('img-etl')
    .command(snapshotCommand(setExitCode))
    .command(serveCommand(setExitCode))
    .strict()
    .help()
    .version(false)
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((msg, err) => {
      throw err ?? new UsageError(msg);
    });
  try {
    await parser.parseAsync();
  } catch (err) {
    process.stderr.write(`img-etl: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
  return exitCode;
}

/** A bad command line: unknown option, invalid value. */
export class UsageError extends Error {}
