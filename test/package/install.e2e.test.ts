/**
 * img-etl installed as a user installs it: `npm pack`, then the tarball installed globally into a temporary prefix
 * and into a temporary project, without the network (a loopback registry that knows package-lock.json's packages;
 * npm takes their tarballs from its cache). The installed program runs from a folder outside the repository against
 * the bundled service over loopback.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/service/index.js';
import { VERSION } from '../../src/snapshot/tool.js';
import { expectRowsMatch } from '../helpers/expected-row.js';
import { startLockfileRegistry, type LockfileRegistry } from '../helpers/lockfile-registry.js';
import { expectedRowsOf, readParquetRows } from '../helpers/read-snapshot.js';
import { openDuckDB, query, removeDir, sqlString, tempDir } from '../helpers/readers.js';
import type { CliRun } from '../helpers/run-cli.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** npm's environment without what the npm that started vitest set (its prefix, its command). */
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

/** Runs a program (no shell) in `cwd` and waits for it to end. */
function run(file: string, args: string[], cwd: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: ENV, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

/** `npm <args>` in `cwd`; a failure throws with npm's output and, if so, the tarballs its cache lacked. */
async function npm(args: string[], cwd: string): Promise<CliRun> {
  const result = await run('npm', [...args, '--registry', `${registry.url}/`, '--no-audit', '--no-fund'], cwd);
  if (result.code === 0) return result;
  const missing = registry.missing.length === 0 ? '' : `; not in the npm cache: ${registry.missing.join(', ')}`;
  throw new Error(`npm ${args.join(' ')} failed${missing} (run npm ci first)\n${result.stderr}`);
}

/** Starts the installed `img-etl serve` on a free port; resolves to its origin (its first line names it) and a stop. */
async function serveInstalled(cwd: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(bin, ['serve', '--port', '0', '--records', '50'], { cwd, env: ENV });
  let said = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      const origin = /http:\/\/127\.0\.0\.1:\d+/.exec(said)?.[0];
      if (origin !== undefined) resolve(origin);
    });
    child.on('exit', () => reject(new Error(`img-etl serve ended: ${said}`)));
  });
  return { url, stop: async () => void (child.kill(), await once(child, 'exit')) };
}

const PIPELINE = `import { definePipeline, filterRows } from 'img-etl';
export default definePipeline({
  name: 'even-ids',
  description: 'Only the images with an even id',
  stages: [filterRows((row) => Number(row['id']) % 2 === 0)],
});
`;

let registry: LockfileRegistry;
let service: RunningService;
let dir: string; // holds the tarball, the prefix, the project and a folder with neither
let bin: string; // the global install's img-etl, by its absolute path
let tarball: string | undefined;
let tarballFiles: string[];

beforeAll(async () => {
  [registry, service, dir] = await Promise.all([
    startLockfileRegistry(join(REPO, 'package-lock.json')),
    startService({ records: 120, seed: 26 }),
    tempDir(),
  ]);
  // dist/ is built (npm test builds first); --ignore-scripts spares a second build
  const packed = await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], REPO);
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  tarballFiles = info!.files.map((f) => f.path);
  tarball = join(dir, info!.filename);
  await Promise.all([mkdir(join(dir, 'project')), mkdir(join(dir, 'elsewhere'))]);
  await writeFile(join(dir, 'project', 'package.json'), '{ "name": "project", "private": true }\n');
  // one after the other: both write the tarball to npm's cache under one key
  await npm(['install', '--global', '--prefix', join(dir, 'prefix'), tarball], dir);
  await npm(['install', tarball], join(dir, 'project'));
  bin = join(dir, 'prefix', 'bin', 'img-etl');
  await writeFile(join(dir, 'project', 'pipeline.mjs'), PIPELINE);
  await writeFile(join(dir, 'elsewhere', 'pipeline.mjs'), PIPELINE);
}, 180_000);

afterAll(async () => {
  // npm keeps each tarball it installs from a file in its cache: this one is gone with the test's folder
  if (tarball !== undefined) {
    const clean = await run('npm', ['cache', 'clean', `pacote:tarball:file:${tarball}`], REPO);
    expect(clean.stderr).not.toContain('Not Found');
  }
  await Promise.all([registry?.close(), service?.close()]);
  await removeDir(dir);
});

describe('img-etl installed from its packed tarball', () => {
  it('the tarball holds the built program and library, not the tests or the TypeScript sources', () => {
    expect(tarballFiles).toContain('dist/src/cli/main.js');
    expect(tarballFiles).toContain('dist/src/index.js');
    // The README's links to the reference resolve in an installed copy too.
    for (const doc of ['docs/options.md', 'docs/completeness.md', 'docs/schema.md'])
      expect(tarballFiles).toContain(doc);
    expect(tarballFiles).toContain('dist/pipelines/derived-columns.js');
    expect(tarballFiles.filter((f) => /^(test|src|pipelines)\/|^dist\/test\//.test(f))).toEqual([]);
  });

  it('serve --help names no file the installed package lacks', async () => {
    const help = await run(bin, ['serve', '--help'], join(dir, 'elsewhere'));
    expect(help.code).toBe(0);
    const files = [...help.stdout.matchAll(/(?<![\w/.-])[\w.-]+(?:\/[\w.-]+)+\.[a-z]+\b/g)].map((m) => m[0]);
    expect(files.filter((file) => !tarballFiles.includes(file))).toEqual([]);
  });

  it('img-etl --version prints the version of package.json', async () => {
    const result = await run(bin, ['--version'], join(dir, 'elsewhere'));
    expect(result).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('a snapshot from another folder writes Parquet that DuckDB reads back as served', async () => {
    const result = await run(bin, ['--base-url', service.url, '--out', 'snap', '--quiet'], join(dir, 'elsewhere'));
    expect(result.code, result.stderr).toBe(0);
    const rows = await readParquetRows(join(dir, 'elsewhere', 'snap'));
    expectRowsMatch(rows, expectedRowsOf(service, service.dataset.ids()));
  });

  it('runs a pipeline of its own pipelines/ by name from another folder', async () => {
    const args = ['run', 'derived-columns', '--base-url', service.url, '--out', 'derived', '--quiet'];
    const result = await run(bin, args, join(dir, 'elsewhere'));
    expect(result.code, result.stderr).toBe(0);
    const file = sqlString(join(dir, 'elsewhere', 'derived', 'images.parquet'));
    const [row] = await query(await openDuckDB(), `SELECT count(add_year) AS n FROM read_parquet(${file})`);
    expect(row!['n']).toBe(120n);
  });

  it('serve, --dry-run, report, diff, files and readme run from another folder', async () => {
    const cwd = join(dir, 'elsewhere');
    const served = await serveInstalled(cwd);
    try {
      expect((await run(bin, ['--base-url', served.url, '--dry-run'], cwd)).code).toBe(0);
      expect((await run(bin, ['--base-url', served.url, '--out', 'small', '--quiet'], cwd)).code).toBe(0);
    } finally {
      await served.stop();
    }
    for (const args of [
      ['report', 'small'],
      ['diff', 'small', 'small'],
      ['files', 'small', '--where', 'id < 0', '--out', 'maps'],
    ]) {
      const result = await run(bin, args, cwd);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    const readme = await run(bin, ['readme'], cwd); // a maintainers' command: it needs the docs to update
    expect(readme).toEqual({
      code: 2,
      stdout: '',
      stderr: "img-etl: readme: no file docs/schema.md here; run img-etl readme in the repository's folder\n",
    });
  });

  it('npx img-etl run ./pipeline.mjs runs a pipeline file in a project that installed img-etl', async () => {
    const args = ['--no', 'img-etl', 'run', './pipeline.mjs', '--base-url', service.url, '--out', 'even', '--quiet'];
    const result = await run('npx', args, join(dir, 'project'));
    expect(result.code, result.stderr).toBe(0);
    const rows = await readParquetRows(join(dir, 'project', 'even'));
    const even = service.dataset.ids().filter((id) => id % 2 === 0);
    expectRowsMatch(rows, expectedRowsOf(service, even));
  });

  it('with a global install only, a pipeline file importing img-etl gets one line: install it (exit 2)', async () => {
    const args = ['run', './pipeline.mjs', '--base-url', service.url, '--out', 'even'];
    const result = await run(bin, args, join(dir, 'elsewhere'));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^img-etl: run: .*pipeline\.mjs imports img-etl, which is not installed in its/);
    expect(result.stderr).toContain('npm i img-etl');
    expect(result.stderr).not.toContain('Cannot find package');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
