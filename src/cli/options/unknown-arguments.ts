/**
 * yargs' "Unknown argument: reprot" rewritten to point at the mistake: what the unknown word is (a command, an
 * option, a stray argument), the nearest known name, and the `--help` that lists them, on one line.
 */
import { nearestName } from '../../text/nearest-name.js';

/** What the command line offered where an unknown argument was found. */
export interface KnownArguments {
  /** The command being parsed (`$0` for the default one). */
  command: string;
  /** Command names a user may type (hidden ones left out). */
  commands: readonly string[];
  /** The options of that command, as yargs knows them (long names and aliases). */
  options: readonly string[];
}

/** yargs' strict-mode message, in the English it is written in. */
const UNKNOWN = /^Unknown arguments?: (.*)$/s;

/** A one-line message for yargs' unknown-argument failure, or undefined when `message` is another failure. */
export function unknownArgumentsMessage(
  message: string,
  argv: readonly string[],
  known: KnownArguments,
): string | undefined {
  const names = UNKNOWN.exec(message)?.[1]?.split(', ');
  if (names === undefined) return undefined;
  let commandSeen = known.command !== '$0'; // only the default command leaves a first word to be a mistyped command
  const parts = names.map((name) => {
    if (isOption(name, argv)) return withSuggestion(`unknown option ${dashed(name)}`, name, known.options, dashed);
    if (commandSeen) return `unexpected argument ${JSON.stringify(name)}`;
    commandSeen = true;
    return withSuggestion(`unknown command ${JSON.stringify(name)}`, name, known.commands, (n) => n);
  });
  const help = known.command === '$0' ? 'img-etl --help' : `img-etl ${known.command} --help`;
  return `${parts.join('; ')} (see ${help})`;
}

/**
 * yargs' strict-mode failure for the long options of `argv` that the command does not know (`Unknown argument: outt`),
 * or undefined when it knows them all. yargs checks for unknown options only after what is missing, which an unknown
 * option often explains: `files snap --outt maps` lacks --out because --out was mistyped.
 */
export function unknownOptionsFailure(argv: readonly string[], known: KnownArguments): string | undefined {
  const end = argv.indexOf('--');
  const names = (end < 0 ? argv : argv.slice(0, end)).flatMap((arg) => {
    const name = /^--([^=]+)/.exec(arg)?.[1];
    if (name === undefined) return [];
    const kebab = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    return [name, kebab, kebab.replace(/^no-/, '')].some((n) => known.options.includes(n)) ? [] : [name];
  });
  return names.length === 0 ? undefined : `Unknown arguments: ${names.join(', ')}`;
}

/** `what`, and the nearest of `names` to `given` as a question when one is close. */
function withSuggestion(what: string, given: string, names: readonly string[], show: (n: string) => string): string {
  const nearest = nearestName(given, names);
  return nearest === undefined ? what : `${what}: did you mean ${show(nearest)}?`;
}

/** Whether `name` came from an option on the command line (`--name`, `--name=v`, `--no-name`, `-n`, `-abn`). */
function isOption(name: string, argv: readonly string[]): boolean {
  return argv.some((arg) => {
    const key = /^--?(?:no-)?([^=]*)/.exec(arg)?.[1];
    if (key === undefined) return false;
    return key === name || (name.length === 1 && /^-[^-]/.test(arg) && key.includes(name));
  });
}

/** An option's name as typed: `-n` for one letter, `--name` otherwise. */
function dashed(name: string): string {
  return name.length === 1 ? `-${name}` : `--${name}`;
}
