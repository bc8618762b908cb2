/**
 * Runs one Node program in a fresh child process and measures it: wall time (taken here, around the
 * child), peak RSS and CPU time (from GNU `/usr/bin/time -v`, i.e. the kernel's rusage of the child;
 * without it, from `process.resourceUsage()` inside the child through a preloaded module). The child
 * can be pinned to one core (`taskset -c`, which execs node in its own place, so the rusage is node's).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pinnedArgv } from './pinning.js';

/** How peak RSS and CPU time are read. */
export type RusageSource = 'time' | 'preload';

/** One measured child process. */
export interface Measurement {
  /** Exit code (or 128 + signal number). */
  exitCode: number;
  /** Seconds from spawn to exit. */
  wallSeconds: number;
  /** Peak resident set size, bytes. */
  maxRssBytes: number;
  /** User plus system CPU seconds of the child. */
  cpuSeconds: number;
  stdout: string;
  stderr: string;
}

const GNU_TIME = '/usr/bin/time';
const PRELOAD = pathToFileURL(fileURLToPath(new URL('./rusage-preload.js', import.meta.url))).href;

/** `time` when GNU time is installed (Debian package `time`), else `preload`. */
export function defaultRusageSource(): RusageSource {
  try {
    accessSync(GNU_TIME, constants.X_OK);
    return 'time';
  } catch {
    return 'preload';
  }
}

/** Runs `node ...nodeArgs script ...args`, on core `cpu` only when given, and measures it. */
export async function measureNode(
  script: string,
  args: string[],
  source: RusageSource,
  cpu?: number,
  nodeArgs: readonly string[] = [],
): Promise<Measurement> {
  const dir = await mkdtemp(join(tmpdir(), 'img-etl-bench-rusage-'));
  const report = join(dir, 'rusage.txt');
  try {
    const node = [...nodeArgs, script, ...args];
    const preloaded = { ...process.env, BENCH_RUSAGE_FILE: report };
    const [argv, env] =
      source === 'time'
        ? [[GNU_TIME, '-v', '-o', report, ...pinnedArgv(cpu, [process.execPath, ...node])], process.env]
        : [pinnedArgv(cpu, [process.execPath, '--import', PRELOAD, ...node]), preloaded];
    const started = performance.now();
    const run = await spawnCollect(argv[0] as string, argv.slice(1), env);
    const wallSeconds = (performance.now() - started) / 1000;
    const text = await readFile(report, 'utf8').catch(() => '');
    const usage = source === 'time' ? parseGnuTime(text) : parsePreload(text);
    const exitCode = run.exitCode !== 0 ? run.exitCode : (usage.exitCode ?? 0);
    return {
      exitCode,
      wallSeconds,
      maxRssBytes: usage.maxRssKb * 1024,
      cpuSeconds: usage.cpuSeconds,
      stdout: run.stdout,
      stderr: run.stderr,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface Usage {
  maxRssKb: number;
  cpuSeconds: number;
  /** The child's own exit status when the wrapper reports it. */
  exitCode?: number;
}

function parseGnuTime(text: string): Usage {
  const field = (label: string): number => {
    const match = new RegExp(`^\\s*${label.replace(/[()]/g, '\\$&')}:\\s*([\\d.]+)\\s*$`, 'm').exec(text);
    if (match === null) throw new Error(`bench: /usr/bin/time -v gave no "${label}" line:\n${text}`);
    return Number(match[1]);
  };
  const signal = /Command terminated by signal (\d+)/.exec(text);
  return {
    maxRssKb: field('Maximum resident set size (kbytes)'),
    cpuSeconds: field('User time (seconds)') + field('System time (seconds)'),
    exitCode: signal === null ? field('Exit status') : 128 + Number(signal[1]),
  };
}

function parsePreload(text: string): Usage {
  if (text === '') throw new Error('bench: the child wrote no resource usage (did it die from a signal?)');
  const usage = JSON.parse(text) as NodeJS.ResourceUsage;
  return { maxRssKb: usage.maxRSS, cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6 };
}

function spawnCollect(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const exitCode = code ?? 128 + (signal === null ? 0 : signalNumber(signal));
      resolve({ exitCode, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

function signalNumber(signal: NodeJS.Signals): number {
  return ({ SIGINT: 2, SIGKILL: 9, SIGTERM: 15 } as Record<string, number>)[signal] ?? 0;
}
