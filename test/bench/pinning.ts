/**
 * Pinning with `taskset` (util-linux): the service on one core, each measured client on another, so a
 * client's speed is measured without the service on its core.
 */
import { spawnSync } from 'node:child_process';

/** The cores the service and the measured clients run on. */
export interface Pinning {
  serviceCpu: number;
  clientCpu: number;
}

/** What the bench can pin: the cores, or why it cannot (one line). */
export type PinningPlan = { pinning: Pinning; reason?: undefined } | { pinning?: undefined; reason: string };

/** Reads the cores this process may run on with `taskset -cp`; the first two become the service's and the clients'. */
export function planPinning(): PinningPlan {
  const run = spawnSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' });
  if (run.error !== undefined || run.status !== 0) {
    const missing = run.error !== undefined && (run.error as NodeJS.ErrnoException).code === 'ENOENT';
    const why = missing ? 'is not installed' : `failed (${run.error?.message ?? run.stderr.trim()})`;
    return { reason: `taskset (util-linux) ${why}: nothing is pinned, the service shares the clients' cores` };
  }
  const list = /affinity list:\s*(\S+)/.exec(run.stdout)?.[1];
  const cpus = list === undefined ? [] : parseCpuList(list);
  if (cpus.length < 2) {
    const cores = `${cpus.length} core(s) (${list ?? run.stdout.trim()})`;
    return { reason: `this process may run on ${cores}: nothing is pinned, the service shares the clients' core` };
  }
  return { pinning: { serviceCpu: cpus[0] as number, clientCpu: cpus[1] as number } };
}

/** Parses a Linux CPU list such as `0-3,6,8-9` into ascending core numbers; throws on anything else. */
export function parseCpuList(list: string): number[] {
  const cpus = new Set<number>();
  for (const part of list.split(',')) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (match === null) throw new Error(`bench: not a CPU list: ${JSON.stringify(list)}`);
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (last < first) throw new Error(`bench: not a CPU list: ${JSON.stringify(list)}`);
    for (let cpu = first; cpu <= last; cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** `argv` run on `cpu` only (`taskset -c CPU argv...`), or unchanged when `cpu` is undefined. */
export function pinnedArgv(cpu: number | undefined, argv: string[]): string[] {
  return cpu === undefined ? argv : ['taskset', '-c', String(cpu), ...argv];
}
