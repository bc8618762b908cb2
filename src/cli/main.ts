#!/usr/bin/env node
/** img-etl command line: parses arguments, runs a command, maps errors to exit codes. */
import { setFlagsFromString } from 'node:v8';

// parquet-wasm runs as fast on V8's baseline WebAssembly code as on optimised code here (measured: same CPU time for
// 200,000 records), and optimising it in the background held the process up to a second at exit.
setFlagsFromString('--liftoff-only');
// Every page passes through a large body string and thousands of record objects that outlive a young-generation
// collection, so the old generation fills with garbage; V8 lets it grow to up to 4x what the last full collection
// kept. 1.75x keeps peak RSS flat: 289-292 MB instead of 348-367 MB for 500,000 records to Parquet, for 12% more
// CPU time (19.1 instead of 17.0 CPU-s). NODE_OPTIONS or node flags that set it win.
const nodeFlags = `${process.env['NODE_OPTIONS'] ?? ''} ${process.execArgv.join(' ')}`;
if (!nodeFlags.includes('--heap-growing-percent')) setFlagsFromString('--heap-growing-percent=75');
// `img-etl files` streams every byte of every file through buffers whose wrappers outlive a young-generation collection
// while they wait for the disk and the gzip check, so V8 doubles the new space up to 2 x 16 MB, which stays. Kept at
// its
// first size for that command: a 1 GB file at 112-123 MiB peak RSS instead of 144-150 MiB (GNU time, 2 runs each).
// Only when the command comes first, as in every example; NODE_OPTIONS or node flags that set it win.
if (process.argv[2] === 'files' && !nodeFlags.includes('--semi-space-growth-factor')) {
  setFlagsFromString('--semi-space-growth-factor=1');
}
const { runCli } = await import('./run-cli.js');
const { drainStdio } = await import('./drain-stdio.js');
const code = await runCli(process.argv.slice(2));
await drainStdio(); // a pipe to a slow reader may still hold output: process.exit would drop it
process.exit(code);
