/** Europe/Berlin wall-clock timestamps in Python's isoformat, as Django writes them with TIME_ZONE = Europe/Berlin. */

const MICROS_PER_SECOND = 1_000_000;

/** The UTC offset of Europe/Berlin in hours (1 or 2) at an instant given in milliseconds since the epoch. */
export function berlinOffsetHours(epochMillis: number): 1 | 2 {
  const year = civilFromDays(Math.floor(epochMillis / 86_400_000))[0];
  // EU rule since 1981: summer time from the last Sunday of March, 01:00 UTC, to the last
  // Sunday of October (of September until 1995), 01:00 UTC. Earlier years: standard time.
  if (year < 1981) return 1;
  let bounds = SUMMER_TIME.get(year);
  if (bounds === undefined) {
    bounds = [lastSundayAt0100Utc(year, 2), lastSundayAt0100Utc(year, year >= 1996 ? 9 : 8)];
    SUMMER_TIME.set(year, bounds);
  }
  return epochMillis >= bounds[0] && epochMillis < bounds[1] ? 2 : 1;
}

const SUMMER_TIME = new Map<number, readonly [number, number]>();

/**
 * Formats an instant given in microseconds since the epoch as Berlin local time with its offset,
 * e.g. `2016-01-21T18:21:57.860138+01:00`; like Python's isoformat, the fraction is left out
 * entirely when the microseconds are 0.
 */
export function formatBerlinTimestamp(epochMicros: number): string {
  if (!Number.isSafeInteger(epochMicros)) {
    throw new Error(`service: timestamp must be a whole number of microseconds, got ${epochMicros}`);
  }
  const micros = ((epochMicros % MICROS_PER_SECOND) + MICROS_PER_SECOND) % MICROS_PER_SECOND;
  const epochSeconds = (epochMicros - micros) / MICROS_PER_SECOND;
  const offset = berlinOffsetHours(epochSeconds * 1000);
  const local = epochSeconds + offset * 3600;
  const days = Math.floor(local / 86_400);
  const secondOfDay = local - days * 86_400;
  const [year, month, day] = civilFromDays(days);
  const hour = Math.floor(secondOfDay / 3600);
  const minute = Math.floor((secondOfDay % 3600) / 60);
  const second = secondOfDay % 60;
  const fraction = micros === 0 ? '' : `.${String(micros).padStart(6, '0')}`;
  const date = `${year < 1000 ? String(year).padStart(4, '0') : year}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}`;
  return `${date}T${TWO_DIGITS[hour]}:${TWO_DIGITS[minute]}:${TWO_DIGITS[second]}${fraction}+0${offset}:00`;
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));

// Days since 1970-01-01 to a proleptic Gregorian [year, month, day] (Howard Hinnant's algorithm).
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

/** Microseconds since the epoch of a UTC calendar instant (month 1-12), for building test instants. */
export function utcMicros(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
  micros = 0,
): number {
  return Date.UTC(year, month - 1, day, hour, minute, second) * 1000 + micros;
}

function lastSundayAt0100Utc(year: number, monthIndex: number): number {
  const lastDay = new Date(Date.UTC(year, monthIndex + 1, 0));
  const day = lastDay.getUTCDate() - lastDay.getUTCDay();
  return Date.UTC(year, monthIndex, day, 1);
}
