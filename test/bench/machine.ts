/** What the benchmark ran on, for the results and the README. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, totalmem, type } from 'node:os';

/** The machine and the code a bench ran on. */
export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  /** 1-minute load average when the bench started (another busy process makes timings noisy). */
  loadAverageAtStart: number;
  /** `git describe`-like: the commit, `+dirty` when src/ has uncommitted changes. */
  commit: string;
}

/** Reads /proc/cpuinfo, os and git. */
export function describeMachine(): Machine {
  return {
    cpu: cpuModel(),
    cores: availableParallelism(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${type()} ${release()}`,
    loadAverageAtStart: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    commit: commit(),
  };
}

/** One line: `AMD EPYC 7B13, 2 cores, 23.4 GiB, Node v20.20.2, Linux 6.1 (commit abc1234)`. */
export function machineLine(m: Machine): string {
  return `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node}, ${m.os}, commit ${m.commit}`;
}

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match?.[1] !== undefined) return match[1].trim();
  } catch {
    // Not Linux: fall through to what os reports.
  }
  return cpus()[0]?.model ?? 'unknown CPU';
}

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'src'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() !== '';
    return dirty ? `${head}+dirty` : head;
  } catch {
    return 'unknown';
  }
}
