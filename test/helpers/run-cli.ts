import { execFile } from 'node:child_process';
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
