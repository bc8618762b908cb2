/**
 * A stale lock never blocks a run for good. A staging folder's lock records the pid, host, boot and
 * start time of the run that took it; a lock whose process has ended, is another process now (another start time or
 * boot) or is not img-etl (pid 1), the older bare-pid form included, is taken over with one line saying so, while the
 * lock of a live img-etl run is still refused. The live run here is the real CLI, held by a server that never answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { madeRecords, startListServer } from '../../helpers/list-server.js';
import { removeDir, tempDir } from '../../helpers/readers.js';
import { cliArgv, runCli } from '../../helpers/run-cli.js';
import { startScriptedServer, type ScriptedServer } from '../../helpers/scripted-server.js';

const STAGING = '.img-etl-staging';
let root: string;
let silent: ScriptedServer;
let list: ScriptedServer;
let live: ChildProcess;
/** The lock the live run wrote, as it wrote it. */
let liveLock: Record<string, unknown>;

beforeAll(async () => {
  root = await tempDir();
  silent = await startScriptedServer(() => undefined); // takes every request and never answers
  list = await startListServer(madeRecords(30));
  const args = ['--base-url', silent.origin, '--out', join(root, 'live'), '--timeout', '600', '--quiet'];
  live = spawn(process.execPath, cliArgv(args), { stdio: 'ignore' });
  const lockPath = join(root, 'live', STAGING, 'lock');
  for (;;) {
    const text = await readFile(lockPath, 'utf8').catch(() => '');
    if (text !== '') {
      // the older bare-pid form reads as its pid alone
      liveLock = /^\d+$/.test(text) ? { pid: Number(text) } : (JSON.parse(text) as Record<string, unknown>);
      break;
    }
    await sleep(10);
  }
});

afterAll(async () => {
  live.kill('SIGKILL');
  await silent.close();
  await list.close();
  await removeDir(root);
});

let out: string;
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await removeDir(out);
});

/** Puts a lock of these contents in the staging folder of `out`; returns the staging folder. */
async function lockWith(text: string): Promise<string> {
  const staging = join(out, STAGING);
  await mkdir(staging, { recursive: true });
  await writeFile(join(staging, 'lock'), text);
  return staging;
}

/** The live run's lock with some fields changed. */
const liveLockWith = (changes: Record<string, unknown>): string => JSON.stringify({ ...liveLock, ...changes }) + '\n';

/** A run of the list server into `out` (not --quiet, which keeps notices off stderr). */
const run = (...extra: string[]) => runCli(['--base-url', list.origin, '--out', out, ...extra]);

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks after boot. */
function startTimeOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

/** Expects a run that took the lock over, with one line saying why, and finished. */
async function expectTakenOver(staging: string, reason: string, ...extra: string[]): Promise<void> {
  const taken = await run(...extra);
  const notices = taken.stderr.split('\n').filter((line) => line.includes('lock'));
  expect(notices).toEqual([`img-etl: staging: took over the stale lock ${join(staging, 'lock')} (${reason})`]);
  expect(taken.code).toBe(0);
}

describe('a live img-etl run keeps its lock', () => {
  it('records the pid, host, boot and start time of the run', () => {
    expect(liveLock).toMatchObject({ pid: live.pid, start_time: startTimeOf(live.pid!) });
    expect(Object.keys(liveLock).sort()).toEqual(['boot_id', 'command_sha256', 'host', 'pid', 'start_time']);
  });

  it('a second run on the same folder is refused, --fresh too', async () => {
    const staging = join(root, 'live', STAGING);
    for (const extra of [[], ['--fresh']]) {
      const second = await runCli(['--base-url', list.origin, '--out', join(root, 'live'), '--quiet', ...extra]);
      expect(second.stderr).toBe(`img-etl: staging: ${staging} is in use by another img-etl run (pid ${live.pid})\n`);
      expect(second.code).toBe(1);
    }
  });

  it("the older bare-pid form naming a live img-etl run is refused; so is another host's lock", async () => {
    const staging = await lockWith(String(live.pid));
    const bare = await run('--quiet');
    expect(bare.stderr).toBe(`img-etl: staging: ${staging} is in use by another img-etl run (pid ${live.pid})\n`);
    expect(bare.code).toBe(1);
    await lockWith(liveLockWith({ host: 'elsewhere' }));
    const remote = await run('--fresh', '--quiet');
    expect(remote.stderr).toBe(
      `img-etl: staging: ${staging} is in use by another img-etl run (pid ${live.pid} on host elsewhere; ` +
        `if none is left there, delete ${join(staging, 'lock')})\n`,
    );
    expect(remote.code).toBe(1);
  });
});

describe('a stale lock is taken over with a notice', () => {
  it('pid 1, alive but not img-etl (its own start time and boot), --fresh or not', async () => {
    const pid1 = liveLockWith({ pid: 1, start_time: startTimeOf(1) });
    await expectTakenOver(await lockWith(pid1), 'pid 1 is not an img-etl run');
    await expectTakenOver(await lockWith(pid1), 'pid 1 is not an img-etl run', '--fresh');
  });

  it('the older bare-pid form naming pid 1', async () => {
    await expectTakenOver(await lockWith('1'), 'pid 1 is not an img-etl run');
  });

  it("the live run's pid with another start time: its pid taken by another process since", async () => {
    const other = String(Number(liveLock['start_time']) + 1);
    const reason = `pid ${live.pid} is another process now (started at another time)`;
    await expectTakenOver(await lockWith(liveLockWith({ start_time: other })), reason);
  });

  it('a lock taken before the machine restarted (another boot id)', async () => {
    const staging = await lockWith(liveLockWith({ boot_id: '00000000-0000-4000-8000-000000000000' }));
    await expectTakenOver(staging, `pid ${live.pid} ran before the machine restarted`);
  });

  it('a process that has ended, and a lock that names no process', async () => {
    const ended = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => ended.once('exit', resolve));
    await expectTakenOver(await lockWith(liveLockWith({ pid: ended.pid })), `pid ${ended.pid} has ended`);
    await expectTakenOver(await lockWith('not a pid'), 'it names no process');
  });
});
