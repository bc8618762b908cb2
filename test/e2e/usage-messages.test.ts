/**
 * Messages that point at the mistake: a mistyped command or option names the nearest one and the `--help` to read.
 * The real CLI.
 */
import { readdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCli } from '../helpers/run-cli.js';

let out: string;
let service: RunningService | undefined;
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await service?.close();
  service = undefined;
  await removeDir(out);
});

describe('unknown commands and options', () => {
  it.each([
    [['reprot'], 'unknown command "reprot": did you mean report? (see img-etl --help)'],
    [['--too', 'parquet'], 'unknown option --too: did you mean --to? (see img-etl --help)'],
    [['--out', 'snap', 'flies'], 'unknown command "flies": did you mean files? (see img-etl --help)'],
    [
      ['files', 'snap', '--out', 'maps', '--wher', 'id = 1'],
      'unknown option --wher: did you mean --where? (see img-etl files --help)',
    ],
    [['run', 'full-snapshot', '--fersh'], 'unknown option --fersh: did you mean --fresh? (see img-etl run --help)'],
    [
      ['--qiet', '--summry', 'json'],
      'unknown option --qiet: did you mean --quiet?; unknown option --summry: did you mean --summary? ' +
        '(see img-etl --help)',
    ],
    [['--zzz'], 'unknown option --zzz (see img-etl --help)'],
    [['diff', 'a', 'b', 'c'], 'unexpected argument "c" (see img-etl diff --help)'],
  ])('%j: exit code 2 and one line naming the nearest and the help', async (args, message) => {
    const run = await runCli(args, { cwd: out });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`img-etl: ${message}\n`);
    expect(run.stdout).toBe('');
    expect(await readdir(out)).toEqual([]);
  });
});
