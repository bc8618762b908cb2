#!/usr/bin/env node
/** img-etl command line: parses arguments, runs a command, maps errors to exit codes. */
import { runCli } from './run-cli.js';

const code = await runCli(process.argv.slice(2));
// Everything the command does is finished here (output on Linux is written synchronously). Exiting now rather than
// when the event loop drains skips V8's background optimisation of parquet-wasm's code, which held the process
// about a second after the last file was written.
process.exit(code);
