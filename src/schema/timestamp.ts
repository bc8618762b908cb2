/**
 * Exact timestamp handling: ISO 8601 text with a UTC offset <-> microseconds since the Unix epoch (bigint).
 * JavaScript's Date keeps milliseconds only, so the fraction is parsed by hand to keep microseconds.
 */

const PATTERN = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:?\d{2})$/;

/** Parses an ISO 8601 timestamp with an offset (`2016-01-21T18:21:57.860138+01:00`) to microseconds since the epoch in UTC; undefined when it is not one. */
export function parseTimestampMicros(text: string): bigint | undefined {
  const m = PATTERN.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m as unknown as string[];
  const year = +y!, month = +mo!, day = +d!, hour = +h!, minute = +mi!, second = +s!;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const digits = zone!.replace(':', '');
    const oh = +digits.slice(1, 3), om = +digits.slice(3, 5);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (digits[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day); // unlike Date.UTC, keeps years 0-99 as written
  utc.setUTCHours(hour, minute, second, 0);
  const ms = utc.getTime() - offsetMinutes * 60_000;
  const micros = frac === undefined ? 0 : Number(frac.padEnd(6, '0'));
  return BigInt(ms) * 1000n + BigInt(micros);
}

/** Formats microseconds since the epoch as ISO 8601 UTC with six fraction digits: `2016-01-21T17:21:57.860138Z`. */
export function formatTimestampMicros(micros: bigint): string {
  const ms = Number(micros / 1000n) - (micros % 1000n < 0n ? 1 : 0);
  const sub = Number(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n);
  const iso = new Date(ms).toISOString(); // 2016-01-21T17:21:57.860Z
  return `${iso.slice(0, 19)}.${String(sub).padStart(6, '0')}Z`;
}

function daysInMonth(year: number, month: number): number {
  return month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}
