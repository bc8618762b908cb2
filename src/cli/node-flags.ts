/** The node flags the `img-etl` program starts with, listed once for main.ts's first line and the manifest. */

/**
 * Node takes V8 flags only on its command line (it refuses these in NODE_OPTIONS, and setting them after start-up is
 * undefined behaviour), so they are in main.ts's `#!/usr/bin/env -S node <flags>` line, which npm's bin link runs; a
 * test holds that line to this list. They keep a long run's peak memory under its target (docs/performance.md, "Node's
 * flags"): `--liftoff-only` keeps parquet-wasm on V8's baseline WebAssembly compiler; `--heap-growing-percent=75`
 * collects the old generation sooner, as each page leaves garbage that outlives a young-generation collection;
 * `--max-semi-space-size=8` keeps the young generation small. A program that calls the library gives them to its own
 * node if it wants them.
 */
export const NODE_FLAGS: readonly string[] = ['--liftoff-only', '--heap-growing-percent=75', '--max-semi-space-size=8'];
