/**
 * CSV field text, byte for byte what csv-stringify writes under the options of csv-stringify-format.ts: a field
 * holding `,`, `"`, CR or LF is quoted with its quotes doubled (nothing else is: not leading or trailing spaces, not
 * tabs); `""` is the empty string (an empty field is null). With formula neutralisation on, a text field starting with
 * `=`, `+`, `-`, `@`, tab, CR or a full-width `＝＋－＠` gets a `'` in front, before quoting.
 */

/** Characters that make csv-stringify quote a field under these options: the delimiter, the quote, CR and LF. */
const NEEDS_QUOTES = /[,"\r\n]/;
const QUOTES = /"/g;

/** A text field: `""` when empty, `'` before a formula start, quoted (quotes doubled) if it holds `,` `"` CR or LF. */
export function csvText(s: string, neutraliseFormulas: boolean): string {
  if (s === '') return '""';
  const field = neutraliseFormulas ? neutraliseFormula(s) : s;
  if (!NEEDS_QUOTES.test(s)) return field;
  return `"${s.includes('"') ? field.replace(QUOTES, '""') : field}"`;
}

/** `s` with a `'` in front when it starts like a formula, as formula neutralisation writes it (before quoting). */
export function neutraliseFormula(s: string): string {
  return startsLikeFormula(s.charCodeAt(0)) ? `'${s}` : s;
}

/** A number field: `String(n)`, but `-0` for negative zero (as the csv-stringify engine's cast); never neutralised. */
export function csvNumber(n: number): string {
  return n === 0 && 1 / n < 0 ? '-0' : String(n);
}

/** `=` `+` `-` `@` tab CR and the full-width `＝＋－＠`: csv-stringify 6's `escape_formulas` list. */
function startsLikeFormula(c: number): boolean {
  return (
    c === 61 ||
    c === 43 ||
    c === 45 ||
    c === 64 ||
    c === 9 ||
    c === 13 ||
    c === 0xff1d ||
    c === 0xff0b ||
    c === 0xff0d ||
    c === 0xff20
  );
}
