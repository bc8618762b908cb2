#!/usr/bin/env node
/** img-etl command line: parses arguments, runs a command, maps errors to exit codes. */
import { setFlagsFromString } from 'node:v8';

// parquet-wasm runs as fast on V8's baseline WebAssembly code as on optimised code here (measured: same CPU time for
// 200,000 records), and optimising it in the background held the process up to a second at exit.
setFlagsFromString('--liftoff-only');
const { runCli } = await import('./run-cli.js');
const code = await runCli(process.argv.slice(2));
process.exit(code); // everything is done and written (stdout and stderr writes are synchronous on Linux)
