/**
 * yargs' "Not enough non-option arguments: got 1, need at least 2" and "Missing required argument: out" rewritten to
 * say what is missing: the positional the command's usage names, or the option, and the `--help` to read, on one line.
 */

/** yargs' messages for a missing positional and a missing required option, in the English they are written in. */
const TOO_FEW = /^Not enough non-option arguments: got (\d+), need at least (\d+)$/;
const REQUIRED = /^Missing required arguments?: (.*)$/;

/**
 * A one-line message for yargs' failure `message` of the command `command` whose usage is `usage` (`diff <old>
 * <new>`), or undefined when it is another failure.
 */
export function missingArgumentsMessage(message: string, command: string, usage: string): string | undefined {
  const help = command === '$0' ? 'img-etl --help' : `img-etl ${command} --help`;
  const few = TOO_FEW.exec(message);
  if (few !== null) {
    const positionals = usage.match(/<[^>]+>/g) ?? [];
    const missing = positionals.slice(Number(few[1]), Number(few[2]));
    if (missing.length === 0) return undefined;
    return `missing ${missing.join(' and ')} (img-etl ${usage}; see ${help})`;
  }
  const required = REQUIRED.exec(message)?.[1]?.split(', ');
  if (required === undefined) return undefined;
  const options = required.map((name) => `--${name}`).join(' and ');
  return `missing ${options}, which ${command === '$0' ? 'img-etl' : command} requires (see ${help})`;
}
