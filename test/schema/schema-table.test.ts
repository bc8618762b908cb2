import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withGeneratedTables } from '../../src/cli/commands/readme-command.js';
import { COLUMNS } from '../../src/schema/columns.js';
import { schemaTableMarkdown } from '../../src/schema/schema-table.js';

describe('the schema tables of docs/schema.md', () => {
  it('has a row for every column, in order', () => {
    const rows = schemaTableMarkdown().split('\n').slice(2);
    expect(rows.map((r) => /^\| `([^`]+)`/.exec(r)?.[1])).toEqual(COLUMNS.map((c) => c.name));
  });

  it('are the ones generated from COLUMNS and COLLECTIONS (run `npm run readme` after changing the schema)', () => {
    const doc = readFileSync(new URL('../../docs/schema.md', import.meta.url), 'utf8');
    expect(withGeneratedTables('docs/schema.md', doc)).toBe(doc);
  });
});
