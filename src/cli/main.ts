#!/usr/bin/env -S node --liftoff-only --heap-growing-percent=75 --max-semi-space-size=8
/** img-etl command line: parses arguments, runs a command, maps errors to exit codes. Its node flags: node-flags.ts. */
import { runCli } from './run-cli.js';
import { drainStdio } from './drain-stdio.js';
import { ignoreClosedPipes } from './closed-pipe.js';
ignoreClosedPipes(process.stdout, process.stderr); // `img-etl … | head -1`: no stack trace, the run's exit code
const code = await runCli(process.argv.slice(2));
await drainStdio(); // a pipe to a slow reader may still hold output: process.exit would drop it
process.exit(code);
