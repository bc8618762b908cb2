/** The command line as a function: builds the yargs parser with every command, runs one, resolves to its exit code. */
import type { CliStreams, CommandIo } from './command-io.js';
import yargs, { type Argv, type CommandModule } from 'yargs';
import { UsageError } from './usage-error.js';
import { exitCodeOf } from './exit-codes.js';
import { withOptionSource } from './options/option-source.js';
import { oneLine } from '../text/one-line.js';
import { serveCommand } from './commands/serve-command.js';
import { demoCommand } from './commands/demo-command.js';
import { readmeCommand } from './commands/readme-command.js';
import { snapshotCommand } from './commands/snapshot-command.js';
import { diffCommand } from './commands/diff-command.js';
import { reportCommand } from './commands/report-command.js';
import { filesCommand } from './commands/files-command.js';
import { pipelineNames } from './load-pipeline.js';
import { runCommand } from './commands/run-command.js';
import { VERSION } from '../snapshot/tool.js';
import { ALL_OPTIONS } from './options/option-table.js';
import { checkGivenArgs } from './options/strict-booleans.js';
import { unknownArgumentsMessage, unknownOptionsFailure } from './options/unknown-arguments.js';
import { missingArgumentsMessage } from './options/missing-arguments.js';
import { messageOf } from '../text/message-of.js';

/**
 * Runs the img-etl command line with the given arguments, writing to `streams` (the process's stdout and stderr by
 * default), and resolves to the exit code. yargs writes `--help` and `--version` to the process's console.
 */
export async function runCli(
  argv: string[],
  streams: CliStreams = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  let exitCode = 0;
  const io: CommandIo = { ...streams, setExitCode: (code) => (exitCode = code), argv };
  const commands: CommandModule<object, never>[] = [
    snapshotCommand(io),
    serveCommand(io),
    demoCommand(io),
    diffCommand(io),
    reportCommand(io),
    filesCommand(io),
    runCommand(io, await pipelineNames()),
    readmeCommand(),
  ] as never;
  try {
    // yargs reads --fresh=yes as false, --concurrency "" as 0
    checkGivenArgs(argv, ALL_OPTIONS);
    await parserOf(argv, commands, streams.stdout).parseAsync();
  } catch (caught) {
    const err = withOptionSource(caught, argv); // a value from IMG_ETL_* or --config: said so
    // one line, whatever a pipeline's own error holds (a stage's message, a stack pasted in)
    streams.stderr.write(`img-etl: ${oneLine(messageOf(err))}\n`);
    return exitCodeOf(err);
  }
  return exitCode;
}

/** The yargs parser of `argv` with `commands`; its failures are one-line usage errors. */
function parserOf(argv: string[], commands: CommandModule<object, never>[], stdout: NodeJS.WriteStream): Argv {
  let current = '$0'; // the command whose builder ran last: the one being parsed
  const parser = commands
    .reduce((y, module) => y.command(tracked(module, (name) => (current = name))), yargs(argv))
    .scriptName('img-etl')
    .strict()
    .help()
    .version(VERSION)
    .wrap(Math.min(110, stdout.columns ?? 110))
    .fail((msg, err) => {
      // yargs' own errors (bad config file, parse errors) are usage errors; a command's errors pass through.
      if (err !== undefined && err !== null && err.name !== 'YError') throw err;
      const known = { command: current, commands: visibleNames(commands), options: optionNames(parser) };
      const missing = msg === null ? undefined : missingArgumentsMessage(msg, current, usageOf(commands, current));
      // an unknown option is told first: what is missing is often the option mistyped
      const failure = missing === undefined ? msg : (unknownOptionsFailure(argv, known) ?? msg);
      const unknown = failure === null ? undefined : unknownArgumentsMessage(failure, argv, known);
      throw new UsageError(unknown ?? missing ?? err?.message ?? msg);
    });
  return parser;
}

/** `module` telling `onBuild` its name when yargs builds it (when it is the command given). */
function tracked(module: CommandModule<object, never>, onBuild: (name: string) => void): CommandModule<object, never> {
  const { builder } = module;
  if (typeof builder !== 'function') return module;
  return { ...module, builder: ((y: Argv) => (onBuild(commandName(module)), builder(y))) as never };
}

/** The names `--help` lists (hidden commands left out). */
function visibleNames(commands: readonly CommandModule<object, never>[]): string[] {
  return commands
    .filter((c) => c.describe !== false)
    .map(commandName)
    .filter((name) => name !== '$0');
}

/** The usage line of the command `name` (`diff <old> <new>`), as its module declares it. */
function usageOf(commands: readonly CommandModule<object, never>[], name: string): string {
  const module = commands.find((c) => commandName(c) === name);
  const command: unknown = Array.isArray(module?.command) ? module.command[0] : module?.command;
  return typeof command === 'string' ? command : name;
}

function commandName(module: CommandModule<object, never>): string {
  const command: unknown = Array.isArray(module.command) ? module.command[0] : module.command;
  return (typeof command === 'string' ? command : '$0').split(' ')[0]!;
}

/** The options yargs knows while it parses a command (getOptions is public in yargs, though untyped). */
function optionNames(parser: Argv): string[] {
  const options = (parser as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions();
  return Object.keys(options.key);
}
