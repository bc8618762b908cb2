/** docs/options.md's tables are the option table's: each option's name, type, default, values, variable, help. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withGeneratedTables } from '../../../src/cli/commands/readme-command.js';
import { COMMAND_OPTIONS } from '../../../src/cli/options/option-table.js';

const doc = readFileSync(new URL('../../../docs/options.md', import.meta.url), 'utf8');

describe('the option tables of docs/options.md', () => {
  it('are the ones generated from the option table (run `npm run readme` after changing an option)', () => {
    expect(withGeneratedTables('docs/options.md', doc)).toBe(doc);
  });

  it('list every option of every command once, with its variable where the command reads IMG_ETL_*', () => {
    for (const { command, options, env } of COMMAND_OPTIONS) {
      const start = doc.indexOf(`<!-- options:start ${command} `);
      const table = doc.slice(start, doc.indexOf(`<!-- options:end ${command} -->`));
      for (const name of Object.keys(options)) {
        const rows = table.split('\n').filter((line) => line.startsWith(`| \`--${name}\` |`));
        expect(rows, `${command} --${name}`).toHaveLength(1);
        const variable = `\`IMG_ETL_${name.toUpperCase().replace(/-/g, '_')}\``;
        expect(rows[0]!.includes(variable), `${command} --${name}`).toBe(env);
      }
    }
  });

  it('fail when an option changes and the doc does not', () => {
    const changed = doc.replace('| `--concurrency` | number | `2` |', '| `--concurrency` | number | `3` |');
    expect(changed).not.toBe(doc);
    expect(withGeneratedTables('docs/options.md', changed)).not.toBe(changed);
  });
});
