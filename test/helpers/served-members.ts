/**
 * The members of a served JSON object as their texts, cut out of the object's text by a scanner of its own (not
 * src/'s), so that a test can say what `extra` must hold: each value exactly as served (`24.0`, `1E5`, `-0`).
 */

/** One top-level member: its key decoded, and the member as served (`"key":value`, no space around the colon). */
export interface ServedMember {
  key: string;
  text: string;
}

/** The top-level members of the JSON object `text`, in served order (a key served twice appears twice). */
export function servedMembers(text: string): ServedMember[] {
  const members: ServedMember[] = [];
  let i = text.indexOf('{') + 1;
  while (i < text.length) {
    const keyStart = text.indexOf('"', i);
    if (keyStart < 0) break;
    const keyEnd = endOfString(text, keyStart);
    const valueStart = skipSpace(text, text.indexOf(':', keyEnd) + 1);
    const valueEnd = endOfValue(text, valueStart);
    const keyText = text.slice(keyStart, keyEnd);
    members.push({ key: JSON.parse(keyText) as string, text: `${keyText}:${text.slice(valueStart, valueEnd)}` });
    i = text.indexOf(',', valueEnd) < 0 ? text.length : text.indexOf(',', valueEnd) + 1;
  }
  return members;
}

/** `extra` as the tool must write it: the members whose key is not `known`, each once, the last served at its place. */
export function servedExtra(text: string, known: ReadonlySet<string>): string | null {
  const unknown = servedMembers(text).filter((m) => !known.has(m.key));
  const last = unknown.filter((m, i) => !unknown.slice(i + 1).some((later) => later.key === m.key));
  return last.length === 0 ? null : `{${last.map((m) => m.text).join(',')}}`;
}

/** The index just past the string that starts (with its quote) at `start`. */
function endOfString(text: string, start: number): number {
  let i = start + 1;
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

function skipSpace(text: string, i: number): number {
  while (/\s/.test(text[i] ?? '')) i++;
  return i;
}

/** The index just past the value that starts at `start`: a string, an object or array, or a scalar. */
function endOfValue(text: string, start: number): number {
  if (text[start] === '"') return endOfString(text, start);
  let depth = 0;
  let i = start;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') i = endOfString(text, i) - 1;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) break;
      depth--;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (c === ',' || /\s/.test(c))) break;
  }
  return i;
}
