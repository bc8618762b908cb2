/**
 * The test set-up, run by `npm test` before the tests (npm's `pretest`): installs what the tests need besides npm's
 * packages, as test-tools.json lists them, and only what is missing. Debian packages (Chromium, Debian's pandas 1.5
 * without pyarrow, nibabel) with apt-get where it runs as root; a Python venv with pandas 3, pyarrow, polars, DuckDB
 * and nilearn in the user's cache folder (shared by every clone, so a fresh clone finds it made). Without root it says
 * what to install, and the tests that need a missing tool skip saying why (test/helpers/test-tools.ts). Nothing
 * installed from inside a test file. When everything is there it starts no installer and takes about a second.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const tools = JSON.parse(readFileSync(new URL('./test-tools.json', import.meta.url), 'utf8'));
const started = Date.now();

/** The venv's folder: under $XDG_CACHE_HOME (default ~/.cache), as test/helpers/test-tools.ts finds it. */
const venv = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), tools.venv.folder);
/** What the venv was made with, kept in it: a change of test-tools.json makes it again. */
const STAMP = 'img-etl-test-tools.json';
const wanted = JSON.stringify(tools.venv.packages);

/** Runs a command; its output is kept and shown only when it fails. */
function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
  const ok = result.status === 0;
  const why = result.error?.message ?? `${command} ${args.join(' ')} exited ${result.status}`;
  return { ok, why, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/** The Debian packages that are not installed: a file they provide is absent, or Debian's Python lacks a module. */
function missingDebianPackages() {
  const modules = tools.debian.filter((p) => p.import).map((p) => p.import);
  const find =
    'import importlib.util, sys; print(" ".join(m for m in sys.argv[1:] if not importlib.util.find_spec(m)))';
  const probe = existsSync(tools.debianPython) ? run(tools.debianPython, ['-s', '-c', find, ...modules]) : undefined;
  const absent = new Set(probe?.ok ? probe.output.split(/\s+/).filter(Boolean) : modules);
  return tools.debian.filter((p) => (p.file ? !existsSync(p.file) : absent.has(p.import))).map((p) => p.package);
}

/** Installs the missing Debian packages where it can; what is still missing, with why. */
function installDebianPackages(missing) {
  if (missing.length === 0) return [];
  const install = `apt-get install ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) return [`${missing.join(', ')}: not installed, and installing needs root (${install})`];
  if (!existsSync('/usr/bin/apt-get')) return [`${missing.join(', ')}: not installed, and there is no apt-get here`];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const lock = ['-o', 'DPkg::Lock::Timeout=900']; // another apt-get may be running: wait for it
  console.log(`test tools: ${install}`);
  for (const args of [
    ['update', '-qq', ...lock],
    ['install', '-y', '-qq', '--no-install-recommends', ...lock, ...missing],
  ]) {
    const done = run('apt-get', args, env);
    if (!done.ok) return [`${missing.join(', ')}: ${done.why}\n${done.output.trim()}`];
  }
  const still = missingDebianPackages();
  return still.length === 0 ? [] : [`${still.join(', ')}: still missing after ${install}`];
}

/**
 * Makes the venv when it is missing or was made with other packages: in a folder of its own, renamed into place once
 * whole, so that a run that stops half-way or a second set-up running at once leaves no half-made venv behind.
 */
function makeVenv() {
  const stamp = join(venv, STAMP);
  if (existsSync(join(venv, 'bin', 'python')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return [];
  const building = `${venv}.tmp-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  console.log(`test tools: a Python venv at ${venv} with ${tools.venv.packages.join(' ')}`);
  const python = ['python3', tools.debianPython].find((p) => run(p, ['-c', 'import venv, ensurepip']).ok);
  if (python === undefined) return [`the Python venv: no python3 with venv here (apt-get install python3-venv)`];
  // Wheels beside the clone (`../shared/wheels`) for what the package index lacks (nilearn on a mirror without it).
  const wheels = fileURLToPath(new URL(`../../${tools.venv.wheels}`, import.meta.url));
  const links = existsSync(wheels) ? ['--find-links', wheels] : [];
  const pip = ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', ...links, ...tools.venv.packages];
  for (const [command, args] of [
    [python, ['-m', 'venv', building]],
    [join(building, 'bin', 'python'), pip],
  ]) {
    const done = run(command, args);
    if (!done.ok) {
      rmSync(building, { recursive: true, force: true });
      return [`the Python venv at ${venv}: ${done.why}\n${done.output.trim()}`];
    }
  }
  writeFileSync(join(building, STAMP), wanted);
  const old = `${venv}.old-${process.pid}`;
  if (existsSync(venv)) renameSync(venv, old);
  try {
    renameSync(building, venv);
  } catch (error) {
    // another set-up put its venv there first: keep that one
    if (!existsSync(join(venv, STAMP))) throw error;
    rmSync(building, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
  return [];
}

const problems = [...installDebianPackages(missingDebianPackages()), ...makeVenv()];
const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
if (problems.length === 0) console.log(`test tools: all there (${took})`);
else {
  const list = problems.map((p) => `  - ${p}`).join('\n');
  console.warn(`test tools: missing, so the tests that need them will skip and say why (${took}):\n${list}`);
}
