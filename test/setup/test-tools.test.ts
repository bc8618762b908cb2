/**
 * The test set-up: the tools the tests need besides npm's packages are installed by one step that `npm
 * test` runs first (npm's pretest), never from inside a test file; run again with everything there, it installs
 * nothing and says so.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { missingTools, type TestTool } from '../helpers/test-tools.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SETUP = 'test/setup/install-test-tools.js';
const TOOLS = JSON.parse(readFileSync(join(ROOT, 'test/setup/test-tools.json'), 'utf8')) as {
  debian: { package: string }[];
};

/** Every file under `dir`, relative to the repository. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

describe('the test set-up', () => {
  it('is npm test\'s pretest, so that the README\'s "npm test" runs it first', () => {
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts['pretest']).toBe(`node ${SETUP}`);
  });

  it('is the one place that installs: no other file under test/ runs apt-get, pip or venv', () => {
    // apt-get or pip run as a command, or python -m pip / venv (a message may name them)
    const installs =
      /(exec|spawn)\w*\(\s*['"][^'"]*\b(apt-get|apt|pip3?)['"]|['"]-m['"],\s*['"](pip|venv|ensurepip)['"]/;
    const offenders = filesUnder('test').filter(
      (f) => f !== SETUP && f !== 'test/setup/test-tools.test.ts' && /\.[jt]s$/.test(f),
    );
    expect(offenders.filter((f) => installs.test(readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
  });

  it('run again with every tool there, installs nothing and says so', (ctx) => {
    const tools: TestTool[] = [...TOOLS.debian.map((p) => p.package as TestTool), 'venv'];
    const missing = missingTools(tools);
    if (missing !== undefined) ctx.skip(missing);
    const output = execFileSync(process.execPath, [join(ROOT, SETUP)], { encoding: 'utf8' });
    expect(output).toMatch(/^test tools: all there \(\d+\.\d s\)\n$/);
  });
});
