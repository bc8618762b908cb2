/**
 * The README stays short, for users, with the reference in docs/; and no relative link in the README, the
 * changelog or docs/*.md points to a file or a heading that is not there (a heading moved or renamed breaks its links
 * here, not in a reader's browser).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_README_LINES = 250;

/** The Markdown files whose links are checked, relative to the repository. */
const FILES = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The text without fenced code blocks, so that a `# comment` in a block is no heading and `[x](y)` in one no link. */
const withoutFences = (text: string) => text.replace(/^ *```[^\n]*\n[\s\S]*?^ *```[^\n]*$/gm, '');

/** The anchor GitHub gives a heading: lowercase, punctuation dropped, each space a hyphen (github-slugger's rule). */
function slugOf(heading: string): string {
  const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every heading anchor of a Markdown file; a repeated heading gets -1, -2, … as on GitHub. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutFences(read(file)).matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const slug = slugOf(heading!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The targets of a file's inline links and images, outside code; external ones (`https:`, `mailto:`) left out. */
function relativeLinksOf(file: string): string[] {
  const text = withoutFences(read(file)).replace(/`[^`]*`/g, '');
  const targets = [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** What is wrong with one link of `file`, or undefined when its file (and heading, if it names one) exist. */
function brokenLink(file: string, target: string): string | undefined {
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const to = path === '' ? file : relative(ROOT, join(ROOT, dirname(file), decodeURIComponent(path)));
  if (!existsSync(join(ROOT, to))) return `${file}: ${target}: no file ${to}`;
  if (anchor === undefined) return undefined;
  if (!to.endsWith('.md')) return `${file}: ${target}: ${to} is not Markdown, it has no headings`;
  return anchorsOf(to).has(anchor) ? undefined : `${file}: ${target}: ${to} has no heading #${anchor}`;
}

describe('README.md and docs/', () => {
  it("what npm pack and the README's commands leave in a checkout is ignored by git", () => {
    const { version } = JSON.parse(read('package.json')) as { version: string };
    // npm pack's tarball, the default outputs of a run and of report, and the folders the README's examples name
    const left = [`img-etl-${version}.tgz`, 'output/images.parquet', 'report.html', 'report.json'];
    left.push('snap/images.parquet', 'snapshots/latest', 'maps/files.parquet');
    const ignored = spawnSync('git', ['check-ignore', '--no-index', ...left], { cwd: ROOT, encoding: 'utf8' });
    expect(ignored.stdout.split('\n').filter(Boolean).sort()).toEqual([...left].sort());
  });

  it(`the README is at most ${MAX_README_LINES} lines`, () => {
    const lines = read('README.md').replace(/\n$/, '').split('\n').length;
    expect(lines, 'README.md: move reference material to docs/').toBeLessThanOrEqual(MAX_README_LINES);
  });

  it('the README links every file of docs/ (its map of the documentation)', () => {
    const linked = new Set(relativeLinksOf('README.md').map((t) => t.split('#')[0]));
    const unlinked = FILES.filter((f) => f.startsWith('docs/') && !linked.has(f));
    expect(unlinked).toEqual([]);
  });

  it('every relative link points to a file that exists, and to a heading it has', () => {
    const links = FILES.flatMap((file) => relativeLinksOf(file).map((target) => ({ file, target })));
    expect(links.length).toBeGreaterThan(50); // the check found the links
    expect(links.map(({ file, target }) => brokenLink(file, target)).filter((b) => b !== undefined)).toEqual([]);
  });

  it('headings get the anchors GitHub gives them', () => {
    expect(slugOf("The files command's JSON log")).toBe('the-files-commands-json-log');
    expect(slugOf('`img-etl files`: where files land, `files.parquet`')).toBe(
      'img-etl-files-where-files-land-filesparquet',
    );
    expect(slugOf('Exit codes, with examples')).toBe('exit-codes-with-examples');
    expect(slugOf('Snapshot options (`img-etl`, `img-etl run`)')).toBe('snapshot-options-img-etl-img-etl-run');
  });
});
