/** When a generated image was added and last modified: a function of (seed, id), drawn apart from its other fields. */
import { utcMicros } from '../../text/berlin-time.js';
import { hash32, Random } from './random.js';

const EPOCH_START = utcMicros(2014, 3, 1);
const LATEST_MODIFICATION = utcMicros(2025, 10, 1);
const SPAN = utcMicros(2026, 3, 1) - EPOCH_START;

/** The time ids around `id` were made (UTC microseconds): it grows with the id and flattens out past 900,000. */
export function idTimeMicros(id: number): number {
  return EPOCH_START + Math.floor((SPAN * id) / (id + 300_000));
}

/** The image's add and modify times in UTC microseconds; `bulkUpdate` is its collection's bulk migration, if any. */
export function imageTimes(seed: number, id: number, bulkUpdate: number | null): { added: number; modified: number } {
  const rng = new Random(hash32(seed, id, 0x71e5));
  const added = withMicros(idTimeMicros(id) + rng.int(0, 90) * 1_000_000, rng);
  if (bulkUpdate !== null && bulkUpdate > added && rng.chance(0.9)) {
    return { added, modified: bulkUpdate + rng.int(0, 600) * 1_000_000 };
  }
  const later = added + Math.floor(rng.next() * rng.next() * 3 * 365 * 86_400) * 1_000_000;
  return { added, modified: withMicros(Math.max(added, Math.min(later, LATEST_MODIFICATION)), rng) };
}

/** The time with a random fraction of a second, or (3% of the time) none: Python's isoformat then drops it. */
export function withMicros(micros: number, rng: Random): number {
  const whole = micros - (((micros % 1_000_000) + 1_000_000) % 1_000_000);
  return whole + (rng.chance(0.03) ? 0 : rng.int(1, 999_999));
}
