/**
 * Every error's message is one line (the CLI prints it as is, the JSON log puts it in one field): runs of white
 * space and control characters (line breaks, U+2028, NUL, ...) become one space, and a long text can be cut.
 */

/** `text` on one line: runs of white space and control characters become one space; past `maxChars`, cut with `…`. */
export function oneLine(text: string, maxChars = Infinity): string {
  const flat = text.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars)}…` : flat;
}
