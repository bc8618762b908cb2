/**
 * The build bundles the program and the library with their packages (scripts/bundle.js, docs/development.md#the-build):
 * this checks that the bundle is what runs, and that a pipeline importing img-etl shares the program's modules.
 */
import { execFile } from 'node:child_process';
import { builtinModules } from 'node:module';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/service/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { CLI, runCli } from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The packages scripts/bundle.js leaves in node_modules. */
const EXTERNAL = ['apache-arrow', 'parquet-wasm', 'parquetjs-lite', 'yargs'];

/**
 * Every module a built file loads: its static imports (esbuild writes them at the start of a line), its dynamic ones,
 * and the require() calls of the CommonJS it bundled.
 */
function specifiers(code: string): string[] {
  const patterns = [
    /^(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["'];/gm,
    /^import\s*["']([^"']+)["'];/gm,
    /\bimport\("([^"]+)"\)/g, // esbuild's quotes: not the import('…') of a JSDoc type
    /\b__require\("([^"]+)"\)/g,
  ];
  return patterns.flatMap((pattern) => [...code.matchAll(pattern)].map((m) => m[1]!));
}

/** The files a built entry loads (itself and the files it imports, transitively), and the packages it names. */
async function loadedBy(entry: string): Promise<{ files: string[]; packages: string[] }> {
  const files = new Set<string>([entry]);
  const packages = new Set<string>();
  for (const file of files) {
    for (const name of specifiers(await readFile(file, 'utf8'))) {
      if (name.startsWith('.')) files.add(resolve(dirname(file), name));
      else if (!name.startsWith('node:') && !builtinModules.includes(name)) packages.add(name);
    }
  }
  return { files: [...files].map((f) => relative(ROOT, f)).sort(), packages: [...packages].sort() };
}

describe('the bundle', () => {
  it('the program loads its own files from dist/src and, of the packages, only those left out', async () => {
    const { files, packages } = await loadedBy(CLI);
    // Unbundled, the program loaded some 300 modules of its own and 280 of apache-arrow, zod and undici.
    expect(files.every((f) => f === 'dist/src/cli/main.js' || /^dist\/src\/chunks\/[\w-]+\.js$/.test(f))).toBe(true);
    expect(files.length).toBeLessThan(150);
    const packageOf = (name: string) => name.split('/')[0]!;
    expect([...new Set(packages.map(packageOf))].sort()).toEqual(EXTERNAL);
  });
});

describe('a pipeline file of a project that installed img-etl', () => {
  let service: RunningService;
  let cwd: string;
  beforeAll(async () => {
    service = await startService({ records: 30, seed: 5 });
    cwd = await tempDir();
    await mkdir(join(cwd, 'node_modules'));
    await symlink(ROOT, join(cwd, 'node_modules', 'img-etl'), 'dir');
    // As npm installs img-etl's packages beside it, where the project's own imports find them.
    await symlink(join(ROOT, 'node_modules', 'apache-arrow'), join(cwd, 'node_modules', 'apache-arrow'), 'dir');
  });
  afterAll(async () => {
    await service.close();
    await removeDir(cwd);
  });

  it("gets the program's own modules: the table the runner gives its sink is the IMAGES it imported", async () => {
    const pipeline = [
      "import { definePipeline, IMAGES, rowSink } from 'img-etl';",
      'export default definePipeline({',
      "  name: 'same-modules',",
      "  description: 'says whether the runner and this file share img-etl',",
      '  sinks: [rowSink(async (rows, run) => {',
      '    for await (const _ of rows);',
      '    process.stdout.write(`same IMAGES: ${run.table === IMAGES}\\n`);',
      '  })],',
      '});',
    ].join('\n');
    await writeFile(join(cwd, 'same-modules.mjs'), pipeline);
    const run = await runCli(['run', './same-modules.mjs', '--base-url', service.url, '--out', 'out', '--quiet'], {
      cwd,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('same IMAGES: true\n');
  });

  const interop =
    'hands a program Arrow objects of the apache-arrow it imports itself: instanceof holds, tableToIPC takes them';
  it(interop, async () => {
    const program = [
      "import { Schema, Table, tableFromIPC, tableToIPC } from 'apache-arrow';",
      "import { arrowSchema } from 'img-etl';",
      'const schema = arrowSchema();',
      'const back = tableFromIPC(tableToIPC(new Table(schema)));',
      'const same = back.schema.fields.length === schema.fields.length;',
      'process.stdout.write(`${schema instanceof Schema} ${same}\\n`);',
    ].join('\n');
    await writeFile(join(cwd, 'arrow-interop.mjs'), program);
    const { stdout, stderr, code } = await runNode([join(cwd, 'arrow-interop.mjs')], cwd);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe('true true\n');
  });
});

/** Runs node with `args` in `cwd`; resolves to its exit code and output. */
function runNode(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd }, (error, stdout, stderr) =>
      done({ code: error === null ? 0 : (error.code as number | null), stdout, stderr }),
    );
  });
}
