/**
 * Starting the bundled service for tests: with the 59 real fixture records (byte for byte), with
 * generated records, or both mixed. Other suites import this to compare outputs with what was served.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type RunningService, type ServiceOptions, startService } from '../../src/service/index.js';

/** Path of the real NeuroVault records recorded in 2025. */
export const FIXTURE_PATH = fileURLToPath(new URL('../fixtures/neurovault-real-records.ndjson', import.meta.url));

/** The fixture records' JSON lines, exactly as recorded. */
export function fixtureLines(): string[] {
  return readFileSync(FIXTURE_PATH, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** The fixture records, parsed. */
export function fixtureRecords(): Record<string, unknown>[] {
  return fixtureLines().map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * Starts a service listing the 59 real records with `records` generated ones mixed in (default
 * none), on 127.0.0.1 and a free port. Close it with `service.close()`.
 */
export function startFixtureService(options: Omit<ServiceOptions, 'data'> = {}): Promise<RunningService> {
  return startService({ records: 0, ...options, data: fixtureLines() });
}
