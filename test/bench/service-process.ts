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
  { type: 'stats' } | { type: 'reset' } | { type: 'change'; fraction: number } | { type: 'close' };

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
  } else if (command.type === 'change') void change(command.fraction).then(send);
  else
    void service.close().then(() => {
      send({ type: 'closed' });
      process.disconnect();
    });
});
// The parent went away without saying close: do not linger.
process.on('disconnect', () => void service.close());

/**
 * Changes about `fraction` of the public collections (at least one) between two runs: as many records are deleted
 * and inserted at random rows (half each, the deletes rounded up), each moving its collection's modify_date, by the
 * service's own mutation knobs on one request of one record.
 */
async function change(fraction: number): Promise<Extract<ServiceReply, { type: 'change' }>> {
  const collections = service.dataset.collections.publicIds().length;
  const changes = Math.max(1, Math.round(collections * fraction));
  const deletes = Math.ceil(changes / 2);
  const inserts = changes - deletes;
  service.setFaults({ deleteRate: 1, deleteCount: deletes, insertRate: inserts > 0 ? 1 : 0, insertCount: inserts });
  await (await fetch(`${service.listUrl}?limit=1`)).text();
  service.setFaults({ deleteRate: 0, insertRate: 0 });
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
