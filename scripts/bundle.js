/**
 * The build's JavaScript (`npm run build`: tsc checks the types and writes the declarations, then this). esbuild
 * bundles the program and the library with the packages they import, so that `img-etl` starts by reading about a
 * hundred files instead of some 580 modules: a run that fails at its first request took 0.99 CPU-s, 0.51 bundled; a
 * snapshot of 200 records 1.17 CPU-s, 0.79 (docs/development.md, The build).
 *
 * Entries, written where tsc would write them: the program (dist/src/cli/main.js, its first line kept), its command
 * line without the process (dist/src/cli/run-cli.js: what main.js runs, for the tests that run it in their own
 * process), the library (dist/src/index.js, what `import … from 'img-etl'` loads) and the diff's worker
 * (dist/src/diff/read-rows-in-worker.js). What two of them share is in dist/src/chunks/, one file loaded once: a
 * pipeline file that imports img-etl (those of pipelines/ too, compiled one file each) gets the very modules the
 * program runs, so a class is one class on both sides. The worker starts the file that holds its own code
 * (`new Worker(new URL(import.meta.url))`); as an entry, that code is in a shared chunk, never in main.js, whose top
 * level would start the whole program again in the worker. dist/src/cli and dist/src/chunks are both two folders
 * below dist, as load-pipeline.ts expects of its own file.
 *
 * Not bundled, loaded from node_modules as before: apache-arrow (the Arrow objects img-etl hands a program must be of
 * the copy the program imports: instanceof and tableToIPC of another copy do not take them), parquet-wasm (it reads its
 * .wasm file beside its own JavaScript),
 * parquetjs-lite (loaded only for --parquet-engine parquetjs) and yargs (it reads its messages' locale files beside
 * its own). test/package/bundle.e2e.test.ts checks that the program imports nothing else from node_modules.
 */
import { build } from 'esbuild';
import { chmodSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

process.chdir(fileURLToPath(new URL('..', import.meta.url)));

/** Removes the JavaScript of an earlier build (chunks are named by their content), keeping tsc's declarations. */
function removeJavaScript(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.js(\.map)?$/.test(entry.name)) rmSync(join(entry.parentPath, entry.name));
  }
}

for (const dir of ['dist/src', 'dist/pipelines']) removeJavaScript(dir);
// No source maps: the bundle is readable as it is (each module's code under a `// src/….ts` line), and a map would
// point into apache-arrow's TypeScript sources, which its package does not ship.
const common = { outdir: 'dist', outbase: '.', format: 'esm', platform: 'node', target: 'node20.19' };
await build({
  ...common,
  entryPoints: ['src/cli/main.ts', 'src/cli/run-cli.ts', 'src/index.ts', 'src/diff/read-rows-in-worker.ts'],
  chunkNames: 'src/chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  external: ['apache-arrow', 'parquet-wasm', 'parquetjs-lite', 'yargs'],
  // undici is CommonJS: its require() of node's modules needs a require in an ES module.
  banner: {
    js:
      "import { createRequire as __createRequire } from 'node:module';\n" +
      'const require = __createRequire(import.meta.url);',
  },
  logLevel: 'warning',
});
// The pipelines, each one file as tsc would write it: it imports the library (../src/index.js), as a user's would.
const pipelines = readdirSync('pipelines').filter((name) => name.endsWith('.ts'));
await build({ ...common, entryPoints: pipelines.map((name) => `pipelines/${name}`), logLevel: 'warning' });
chmodSync('dist/src/cli/main.js', 0o755);
