import { readFileSync } from 'node:fs';

/** The 59 real records recorded from neurovault.org (test/fixtures), as parsed objects. */
export const fixtureRecords: Record<string, unknown>[] = readFileSync(new URL('../fixtures/neurovault-real-records.ndjson', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The fixture record with this id. */
export function fixtureById(id: number): Record<string, unknown> {
  const record = fixtureRecords.find((r) => r['id'] === id);
  if (record === undefined) throw new Error(`no fixture record ${id}`);
  return record;
}
