/**
 * The `npx img-etl` commands of a doc's shell block as argument lists: `npx img-etl` left out, comments dropped, lines
 * joined at a backslash, words split as a shell would for the quoting the docs use (double quotes holding single
 * quotes).
 */
export function docCommands(text: string): string[][] {
  const joined = text.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.startsWith('npx img-etl'))
    .map((line) =>
      [...line.slice('npx img-etl'.length).matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!),
    );
}
