import { fixtureRecords as readFixtureRecords } from './fixture-service.js';

/** The 59 real records recorded from neurovault.org (test/fixtures), as parsed objects. */
export const fixtureRecords: Record<string, unknown>[] = readFixtureRecords();

/** The fixture record with this id. */
export function fixtureById(id: number): Record<string, unknown> {
  const record = fixtureRecords.find((r) => r['id'] === id);
  if (record === undefined) throw new Error(`no fixture record ${id}`);
  return record;
}
