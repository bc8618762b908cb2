import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';

/** The built CLI (npm test builds before vitest runs). */
export const CLI = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

/**
 * node's arguments for a run of the CLI: by default NODE_FLAGS before it, as the `img-etl` program starts node (its
 * first line), so that the tests run the program as its users do. (Without `--liftoff-only`, V8 also optimises all of
 * parquet-wasm in the background: about twice the CPU time of a small run.) node-flags.test runs node without them.
 */
export function cliArgv(args: readonly string[], nodeArgs: readonly string[] = NODE_FLAGS): string[] {
  return [...nodeArgs, CLI, ...args];
}

/** What a CLI run printed and how it ended. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * How to run the CLI: environment, folder, time limit (default 120 s), the signal that ends a run past it (default
 * SIGTERM; SIGKILL for a run that may not heed SIGTERM), arguments to node itself (default NODE_FLAGS, see cliArgv).
 */
export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
  killSignal?: NodeJS.Signals;
  nodeArgs?: readonly string[];
}

/** Runs the real CLI in a child process (no shell) and waits for it to end; `nodeArgs` go to node before the CLI. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      cliArgv(args, options.nodeArgs),
      {
        env: { ...process.env, ...options.env },
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 120_000,
        killSignal: options.killSignal ?? 'SIGTERM',
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The built command line without its process (dist/src/cli/run-cli.js): what the program runs. */
const RUN_CLI = new URL('../../dist/src/cli/run-cli.js', import.meta.url).href;

/**
 * Runs the built command line in the test's process, its stdout and stderr collected: the code the program runs
 * (main.js calls this runCli and exits with its code), without a node process's start (about 0.6 CPU-s a run).
 * For the runs whose subject is not the process: it shares the test process's environment, folder, signals and
 * node flags, and yargs writes `--help` and `--version` to the test's console. Those, a killed run, a run that makes
 * parquet-wasm trap, and what the process itself does (its exit, its output through a pipe) are runCli's.
 */
export async function runCliHere(args: string[]): Promise<CliRun> {
  // After a trap parquet-wasm refuses every read in this process: a later run is refused here, naming the first.
  if (trappedBy !== undefined)
    throw new Error(`runCliHere: parquet-wasm trapped in the test's process (img-etl ${trappedBy.join(' ')}) before`);
  const { runCli: run } = (await import(/* @vite-ignore */ RUN_CLI)) as {
    runCli: (argv: string[], streams: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream }) => Promise<number>;
  };
  const stdout = new TextSink();
  const stderr = new TextSink();
  const code = await untilUncaught(run(args, { stdout: stdout.stream, stderr: stderr.stream }));
  // After a WebAssembly trap parquet-wasm is unusable in that process (src/snapshot/wasm-trap.ts): every later run in
  // this test process would fail. A run that meets one is a process's own.
  if (/RuntimeError\b/.test(stderr.text)) {
    trappedBy = args;
    throw new Error(`runCliHere: parquet-wasm trapped in the test's process; run this with runCli: ${stderr.text}`);
  }
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** The arguments of the run of runCliHere that made parquet-wasm trap in this process. */
let trappedBy: string[] | undefined;

/**
 * `running`, or rejected with an exception nothing caught or a rejection nothing handled while it runs: in a child
 * process that ends the run (exit 1, a stack trace), here the run's promise might never settle and the test would
 * wait for its time limit. (vitest reports the error as well.)
 */
function untilUncaught<T>(running: Promise<T>): Promise<T> {
  let fail: (error: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  // A WebAssembly trap is the run's to take (src/snapshot/wasm-trap.ts): it fails the read, and the guard above then
  // refuses the run.
  const onError = (error: unknown): void => {
    if (!(error instanceof Error && error.name === 'RuntimeError')) fail(error);
  };
  process.on('uncaughtException', onError).on('unhandledRejection', onError);
  return Promise.race([running, failed]).finally(() =>
    process.off('uncaughtException', onError).off('unhandledRejection', onError),
  );
}

/**
 * A writable stream that keeps what is written to it as text (not a terminal, as a pipe is not): strings as given,
 * bytes decoded as one UTF-8 text (a character split between two writes is whole).
 */
export class TextSink {
  private readonly decoder = new StringDecoder('utf8');
  private written = '';
  readonly stream = new Writable({
    decodeStrings: false,
    write: (chunk: Buffer | string, _encoding, done) => {
      this.written += typeof chunk === 'string' ? this.decoder.end() + chunk : this.decoder.write(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream;

  /** What was written; read once the writes are done (a character cut short at the end reads as U+FFFD). */
  get text(): string {
    this.written += this.decoder.end();
    return this.written;
  }
}
