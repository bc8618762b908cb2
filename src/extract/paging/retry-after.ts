/** Reads a server's Retry-After header, in either of its forms, as a wait in milliseconds. */

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
// RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must accept.
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`);
const RFC_850 = new RegExp(
  `^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`,
);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`);

/**
 * Parses a Retry-After header (delta-seconds, or an HTTP date) into milliseconds from `now`; a date in the past is 0.
 * Undefined when absent or not one of those forms (`-5`, `1.5`, `soon`): the caller then backs off as it would without
 * one.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  let date: number;
  if (IMF_FIXDATE.test(text) || RFC_850.test(text)) date = Date.parse(text);
  else if (ASCTIME.test(text))
    date = Date.parse(`${text} GMT`); // asctime carries no zone; HTTP dates are GMT
  else return undefined;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
