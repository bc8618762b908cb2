/**
 * The bundled service in its own process, for the benchmark: started from the built library with a
 * load model (with or without the collection endpoints), it reports its URL and answers `stats`/`reset` over
 * the IPC channel, so the bench can read what each measured run cost the server without the server's CPU
 * inside the measured client.
 */
import { readFileSync } from 'node:fs';
import { startService } from 'img-etl';
import { serviceOptionsOf } from './bench-service.js';

/**
 * What the parent sends: a request for the counters, to zero them, to change a share of the collections between two
 * runs, or to stop.
 */
export type ServiceCommand =
  { type: 'stats' } | { type: 'reset' } | { type: 'change'; fraction: number; round: number } | { type: 'close' };

/** What this process sends back. */
export type ServiceReply =
  | { type: 'ready'; url: string; count: number; cpus: string }
  | { type: 'stats'; stats: unknown }
  | { type: 'reset' }
  | { type: 'change'; changes: number; collections: number }
  | { type: 'closed' };

if (process.send === undefined)
  throw new Error('bench: service-process must be started with an IPC channel (child_process.fork)');
const send = process.send.bind(process) as (reply: ServiceReply) => boolean;

const service = await startService(serviceOptionsOf(process.argv.slice(2)));
send({ type: 'ready', url: service.url, count: service.dataset.size, cpus: allowedCpus() });

process.on('message', (command: ServiceCommand) => {
  if (command.type === 'stats') send({ type: 'stats', stats: service.stats });
  else if (command.type === 'reset') {
    service.resetStats();
    send({ type: 'reset' });
  } else if (command.type === 'change') send(change(command.fraction, command.round));
  else
    void service.close().then(() => {
      send({ type: 'closed' });
      process.disconnect();
    });
});
// The parent went away without saying close: do not linger.
process.on('disconnect', () => void service.close());

/**
 * Changes about `fraction` of the public collections (at least one), chosen uniformly at random, between two runs:
 * a record edited, deleted or inserted in each, a third of them each (`RunningService.change`, as `POST /admin/change`
 * does); each moves its collection's modify_date. `round` seeds the choice.
 */
function change(fraction: number, round: number): Extract<ServiceReply, { type: 'change' }> {
  const collections = service.dataset.collections.publicIds().length;
  const changes = Math.max(1, Math.round(collections * fraction));
  const kinds = ['edit', 'delete', 'insert'] as const;
  kinds.forEach((kind, k) => {
    const share = Math.floor(changes / 3) + (k < changes % 3 ? 1 : 0);
    if (share > 0) service.change({ kind, collections: share, seed: round * 3 + k + 1 });
  });
  return { type: 'change', changes, collections };
}

/** The cores this process may run on, from the kernel (so the bench can show that pinning took effect). */
function allowedCpus(): string {
  try {
    return /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
