/** How deeply an unknown key's value may nest, and the check of it. */

/** How deep an unknown key's value may nest: deeper values would overflow JSON.stringify when written to `extra`. */
export const MAX_JSON_DEPTH = 64;

/** True when a parsed JSON value nests no deeper than MAX_JSON_DEPTH (checked without recursion). */
export function isShallowJson(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_JSON_DEPTH) return false;
    for (const child of Object.values(node as object))
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return true;
}
