/**
 * Exact timestamp handling: ISO 8601 text with a UTC offset <-> microseconds since the Unix epoch (bigint).
 * JavaScript's Date keeps milliseconds only, so the fraction is parsed by hand to keep microseconds.
 */

/**
 * Parses an ISO 8601 timestamp with an offset (`2016-01-21T18:21:57.860138+01:00`) to microseconds since the epoch in
 * UTC; undefined when it is not one.
 */
export function parseTimestampMicros(text: string): bigint | undefined {
  // A hand-written scanner: this runs twice per record, and a RegExp plus Date cost ten times as much.
  // Grammar: YYYY-MM-DD[T ]HH:MM:SS[.f{1,6}](Z|+HH:MM|-HH:MM|+HHMM|-HHMM)
  if (text.length < 20) return undefined;
  const local = localSeconds(text);
  if (local === undefined) return undefined;
  let i = 19;
  let fraction = 0;
  if (text.charCodeAt(i) === 46) {
    // '.'
    let count = 0;
    for (i++; i < text.length && count < 7; i++, count++) {
      const c = text.charCodeAt(i) - 48;
      if (c < 0 || c > 9) break;
      fraction = fraction * 10 + c;
    }
    if (count === 0 || count > 6) return undefined;
    fraction *= 10 ** (6 - count);
  }
  const offsetMinutes = offsetMinutesAt(text, i);
  if (offsetMinutes === undefined) return undefined;
  const seconds = local - offsetMinutes * 60;
  const micros = seconds * 1_000_000 + fraction;
  return Number.isSafeInteger(micros) ? BigInt(micros) : BigInt(seconds) * 1_000_000n + BigInt(fraction);
}

/**
 * parseTimestampMicros, and also the extended-year form formatTimestampMicros writes for an instant outside years
 * 0000-9999 (`+010000-01-01T13:59:59.999999Z`, `-000001-12-31T23:00:00.000000Z`): what reads back the CSV it writes.
 */
export function parseFormattedTimestampMicros(text: string): bigint | undefined {
  const sign = text.charCodeAt(0);
  if (sign !== 43 && sign !== 45) return parseTimestampMicros(text); // not '+' or '-'
  const magnitude = digits(text, 1, 6);
  const year = sign === 45 ? -magnitude : magnitude;
  if (magnitude < 0 || (year >= 0 && year <= 9999)) return undefined; // a four-digit year is written as such
  // The same text in a year of four digits with the same calendar (leap or not), moved by the days between the two.
  const like = isLeapYear(year) ? 2000 : 2001;
  const micros = parseTimestampMicros(`${like}${text.slice(7)}`);
  if (micros === undefined) return undefined;
  return micros + BigInt(daysFromCivil(year, 1, 1) - daysFromCivil(like, 1, 1)) * 86_400_000_000n;
}

/** Seconds from the epoch to the `YYYY-MM-DD[T ]HH:MM:SS` starting `text`, read as UTC; undefined when not one. */
function localSeconds(text: string): number | undefined {
  const year = digits(text, 0, 4),
    month = digits(text, 5, 2),
    day = digits(text, 8, 2);
  const hour = digits(text, 11, 2),
    minute = digits(text, 14, 2),
    second = digits(text, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined;
  if (
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58
  )
    return undefined; // - - : :
  const t = text.charCodeAt(10);
  if (t !== 84 && t !== 32) return undefined; // 'T' or ' '
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59)
    return undefined;
  return daysFromCivil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second;
}

/** The offset ending `text` at `i` in minutes east of UTC (`Z`, `+HH:MM`, `-HH:MM`, `+HHMM`, `-HHMM`), or undefined. */
function offsetMinutesAt(text: string, i: number): number | undefined {
  const n = text.length;
  const sign = text.charCodeAt(i);
  if (sign === 90 && i + 1 === n) return 0; // 'Z'
  if ((sign !== 43 && sign !== 45) || (n - i !== 6 && n - i !== 5)) return undefined;
  const colon = n - i === 6;
  if (colon && text.charCodeAt(i + 3) !== 58) return undefined;
  const oh = digits(text, i + 1, 2),
    om = digits(text, i + (colon ? 4 : 3), 2);
  if (oh < 0 || om < 0 || oh > 23 || om > 59) return undefined;
  return (sign === 45 ? -1 : 1) * (oh * 60 + om);
}

/** The number written with `length` decimal digits at `start`, or -1. */
function digits(text: string, start: number, length: number): number {
  let value = 0;
  for (let i = start; i < start + length; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    value = value * 10 + c;
  }
  return value;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
const HOUR_MINUTE = Array.from({ length: 1440 }, (_, n) => `${TWO_DIGITS[Math.floor(n / 60)]}:${TWO_DIGITS[n % 60]}:`);

/**
 * Formats microseconds since the epoch as ISO 8601 UTC with six fraction digits: `2016-01-21T17:21:57.860138Z`; outside
 * years 0000-9999 in ISO 8601's extended-year form, `+010000-01-01T13:59:59.999999Z`, `-000001-12-31T23:00:00.000000Z`
 * (a served time near the year limits with an offset lands there). Instants from 1970 to 2255 (0 to 2^53 µs) are
 * computed with exact small-number arithmetic and tables of digit strings (the CSV writer formats two a row; BigInt
 * division, Date and toISOString cost more than all of a row's other fields); other instants go through Date.
 */
export function formatTimestampMicros(micros: bigint): string {
  const n = Number(micros); // exact up to 2^53; anything larger rounds to 2^53 or more and takes the general path
  if (!(n >= 0 && n <= Number.MAX_SAFE_INTEGER)) return formatTimestampMicrosByDate(micros);
  // The floor is exact: below 2^34 the quotient's rounding error (at most 2^-20) is less than 1e-6, the least that it
  // lies below a whole number.
  const seconds = Math.floor(n / 1_000_000);
  const fraction = n - seconds * 1_000_000;
  const days = Math.floor(seconds / 86_400);
  const secondOfDay = seconds - days * 86_400;
  // days since 1970-01-01 to year, month, day: H. Hinnant's civil_from_days, in int32 arithmetic as days >= 0
  const z = days + 719_468;
  const era = (z / 146_097) | 0;
  const doe = z - era * 146_097;
  const yoe = ((doe - ((doe / 1_460) | 0) + ((doe / 36_524) | 0) - ((doe / 146_096) | 0)) / 365) | 0;
  const doy = doe - (365 * yoe + ((yoe / 4) | 0) - ((yoe / 100) | 0));
  const mp = ((5 * doy + 2) / 153) | 0;
  const day = doy - (((153 * mp + 2) / 5) | 0) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const century = (year / 100) | 0;
  const minuteOfDay = (secondOfDay / 60) | 0;
  const millis = (fraction / 1000) | 0;
  const t = TWO_DIGITS;
  const date = `${t[century]}${t[year - century * 100]}-${t[month]}-${t[day]}`;
  const time = `${HOUR_MINUTE[minuteOfDay]}${t[secondOfDay - minuteOfDay * 60]}`;
  return `${date}T${time}.${THREE_DIGITS[millis]}${THREE_DIGITS[fraction - millis * 1000]}Z`;
}

/** formatTimestampMicros for any instant Date represents, through Date's own ISO text. */
export function formatTimestampMicrosByDate(micros: bigint): string {
  const ms = Number(micros / 1000n) - (micros % 1000n < 0n ? 1 : 0);
  const sub = Number(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n);
  const iso = new Date(ms).toISOString(); // 2016-01-21T17:21:57.860Z, or +010000-01-01T13:59:59.999Z: drop `.860Z`
  return `${iso.slice(0, -5)}.${String(sub).padStart(6, '0')}Z`;
}

function daysInMonth(year: number, month: number): number {
  return month === 2 ? (isLeapYear(year) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}
