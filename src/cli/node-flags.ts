/**
 * The node flags the `img-etl` command runs with. Node takes V8 flags only on its command line (it refuses these in
 * NODE_OPTIONS, and setting them after start-up is undefined behaviour), so they are in the first line of main.ts,
 * `#!/usr/bin/env -S node <flags>`, which npm's bin link runs; a test holds that line to this list and checks that
 * a run started so has them. A program that calls the library gives them to its own node if it wants them.
 * Measured at 500,000 records to Parquet, pinned (README, Performance):
 * - `--liftoff-only`: parquet-wasm stays on V8's baseline WebAssembly compiler. Peak RSS 311–319 MB instead of
 *   413–423, the same CPU time, and no stall at exit while V8 optimises code that will not run again.
 * - `--heap-growing-percent=75`: the old generation may grow to 1.75x what the last full collection kept, not up to
 *   4x; each page leaves a large string and thousands of objects that outlive a young-generation collection. With
 *   the flag above: 259–265 MB instead of 311–319 MB, for 11% more CPU time (23.7 instead of 21.1 CPU-s).
 * - `--max-semi-space-size=8`: a young generation of half Node 20's 16 MB semi-spaces. Later code measured 291–299 MB
 *   peak (bench medians of 3) with the two flags above, at the target's edge; see the README for this flag's numbers.
 */
export const NODE_FLAGS: readonly string[] = ['--liftoff-only', '--heap-growing-percent=75', '--max-semi-space-size=8'];
