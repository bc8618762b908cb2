import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withSchemaTable } from '../../src/cli/readme-command.js';
import { COLUMNS } from '../../src/schema/columns.js';
import { schemaTableMarkdown } from '../../src/schema/schema-table.js';

describe('README schema table', () => {
  it('has a row for every column, in order', () => {
    const rows = schemaTableMarkdown().split('\n').slice(2);
    expect(rows.map((r) => /^\| `([^`]+)`/.exec(r)?.[1])).toEqual(COLUMNS.map((c) => c.name));
  });

  it('in README.md is the one generated from COLUMNS (run `npm run readme` after changing the schema)', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(withSchemaTable(readme)).toBe(readme);
  });
});
