/**
 * Values a selection asks a category column for that no image has, while one differs only in case (`map_type =
 * 'z map'` where the images have 'Z map'): text compares exactly, so the selection is quietly short of what was meant.
 */
import type { ConditionValue, WhereCondition } from './where-condition.js';

/** Gathers the values images have of each category column an `=` or `in` condition reads (a category has few). */
export class UnmatchedValues {
  /** The values seen, by the position of their condition in `where`. */
  private readonly seen = new Map<number, Set<string>>();

  constructor(private readonly where: readonly WhereCondition[]) {
    for (const [at, { column, op }] of where.entries())
      if (column.type.kind === 'category' && (op === '=' || op === 'in')) this.seen.set(at, new Set());
  }

  /** The positions in `where` of the conditions watched. */
  get positions(): number[] {
    return [...this.seen.keys()];
  }

  /** Takes an image's value of the column the condition at position `at` reads. */
  see(at: number, value: ConditionValue | null): void {
    if (typeof value === 'string') this.seen.get(at)?.add(value);
  }

  /** A line for each value asked for that no image has, while one differs from it only in case. */
  lines(): string[] {
    return [...this.seen].flatMap(([at, seen]) => {
      const { text, column, values } = this.where[at]!;
      return (values as string[]).flatMap((wanted) => {
        const like = seen.has(wanted) ? undefined : [...seen].find((v) => v.toLowerCase() === wanted.toLowerCase());
        if (like === undefined) return [];
        const [asked, had] = [wanted, like].map((v) => `'${v.replaceAll("'", "''")}'`);
        return [
          `files: --where ${JSON.stringify(text)}: no image has ${column.name} ${asked}; ${had} differs only in case ` +
            '(values compare exactly)',
        ];
      });
    });
  }
}
