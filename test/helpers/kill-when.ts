/** Starting the real CLI and killing it with SIGKILL at a chosen point of its staging journal. */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { cliArgv } from './run-cli.js';

/** A journal line, as far as these tests read it. */
export type JournalEntry = { type: string; url: string; round?: number };

/** The staging journal of `out` so far, whole lines only. */
export async function journalEntries(out: string): Promise<JournalEntry[]> {
  const text = await readFile(join(out, '.img-etl-staging', 'journal.ndjson'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.endsWith('}'))
    .map((l) => JSON.parse(l) as JournalEntry);
}

/**
 * Starts the CLI with `args`, kills it with SIGKILL once `ready(journal)` holds (read every 2 ms or more, at most
 * `polls` times), and resolves to the journal it left.
 */
export async function killWhen(
  args: string[],
  out: string,
  ready: (entries: JournalEntry[]) => boolean,
  polls = 10_000,
): Promise<JournalEntry[]> {
  const child = spawn(process.execPath, cliArgv(args), { stdio: 'ignore' });
  const exited = new Promise<string | null>((resolve) => child.on('exit', (_, signal) => resolve(signal)));
  for (let i = 0; i < polls && child.exitCode === null; i++) {
    if (ready(await journalEntries(out))) {
      child.kill('SIGKILL');
      break;
    }
    await sleep(2);
  }
  expect(await exited).toBe('SIGKILL');
  return journalEntries(out);
}
