/**
 * The tools a test needs besides npm's packages (test/setup/test-tools.json): Debian packages and the Python venv of
 * pandas 3, pyarrow, polars and DuckDB. The test set-up installs them (test/setup/install-test-tools.js, which `npm
 * test` runs first); a test only asks whether they are there, and where one is missing says why it skips.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

interface DebianPackage {
  package: string;
  /** A file it provides, or the Python module it gives Debian's Python. */
  file?: string;
  import?: string;
}

const TOOLS = JSON.parse(readFileSync(new URL('../setup/test-tools.json', import.meta.url), 'utf8')) as {
  debian: DebianPackage[];
  debianPython: string;
  venv: { folder: string };
};

/** A tool a test may need: a Debian package, or `venv`. */
export type TestTool = 'chromium' | 'python3-pandas' | 'python3-nibabel' | 'venv';

/** Debian's Python (3.11 on Debian 12), with Debian's pandas 1.5 and no pyarrow. */
export const DEBIAN_PYTHON = TOOLS.debianPython;

/** The Python of the test venv: pandas 3, pyarrow, polars, duckdb, as the set-up made it. */
export const VENV_PYTHON = join(
  process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'),
  TOOLS.venv.folder,
  'bin',
  'python',
);

function runs(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function isThere(tool: TestTool): boolean {
  if (tool === 'venv') return existsSync(VENV_PYTHON);
  const known = TOOLS.debian.find((p) => p.package === tool)!;
  if (known.file !== undefined) return existsSync(known.file);
  return existsSync(DEBIAN_PYTHON) && runs(DEBIAN_PYTHON, ['-s', '-c', `import ${known.import!}`]);
}

/** Undefined when every tool is there, else why the test cannot run: what is missing and how to install it. */
export function missingTools(tools: readonly TestTool[]): string | undefined {
  const missing = tools.filter((t) => !isThere(t));
  if (missing.length === 0) return undefined;
  return (
    `${missing.join(', ')} not installed: the test set-up installs ${missing.length === 1 ? 'it' : 'them'} ` +
    '(npm run pretest; Debian packages need root), see test/setup/test-tools.json'
  );
}
