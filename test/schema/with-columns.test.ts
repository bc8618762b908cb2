/** The columns a pipeline adds to the images table (withColumns, derivedColumn). */
import { describe, expect, it } from 'vitest';
import { ArrowBatchBuilder } from '../../src/load/arrow/arrow-batches.js';
import type { ColumnType } from '../../src/schema/column-type.js';
import { record } from '../../src/schema/columns.js';
import { IMAGES } from '../../src/schema/columns.js';
import { int64 } from '../../src/schema/column-types/int64.js';
import { string } from '../../src/schema/column-types/string.js';
import { derivedColumn } from '../../src/schema/derived-column.js';
import { emptyNormalisationCounts } from '../../src/schema/normalisation-counts.js';
import { withColumns } from '../../src/schema/with-columns.js';
import { normaliseRecords } from '../../src/transform/normalise.js';
import { fixtureRecords as fixtures } from '../helpers/fixture-records.js';

const idPlusOne = derivedColumn('id_plus_one', int64, 'id + 1', (row) => (row['id'] as number) + 1);

describe('withColumns', () => {
  it('adds the columns after the own ones, before extra, under the schema version that names them', () => {
    const table = withColumns(IMAGES, [idPlusOne]);
    expect(table.names).toEqual([...IMAGES.names.slice(0, -1), 'id_plus_one', 'extra']);
    expect(table.schemaVersion).toBe(`${IMAGES.schemaVersion}+id_plus_one`);
    expect(table.files).toBe(IMAGES.files);
    expect(withColumns(IMAGES, [])).toBe(IMAGES);
  });

  it('computes a derived column from the normalised row: timestamps as microseconds, the record as served', () => {
    const micros = derivedColumn('add_micros', int64, 'add_date in ms', (row) => Number(row['add_date']));
    const served = derivedColumn('served_add_date', string, 'add_date as served', (_, r) => r['add_date'] as string);
    const table = withColumns(IMAGES, [micros, served]);
    const [row] = normaliseRecords([fixtures[0]!], emptyNormalisationCounts(), table);
    expect(row!['served_add_date']).toBe(fixtures[0]!['add_date']);
    expect(BigInt(row!['add_micros'] as number)).toBe(row!['add_date']);
  });

  it("a record key's column takes that key out of extra", () => {
    const withExtra = fixtures.find((r) => typeof r['type'] === 'string' && r['type'] !== '')!;
    const table = withColumns(IMAGES, [record('type', string, 'the type key of some collections')]);
    const [plain] = normaliseRecords([withExtra], emptyNormalisationCounts());
    const [row] = normaliseRecords([withExtra], emptyNormalisationCounts(), table);
    expect(row!['type']).toBe(withExtra['type']);
    expect(JSON.parse(plain!['extra'] as string)).toHaveProperty('type');
    expect(JSON.parse(row!['extra'] as string)).not.toHaveProperty('type');
    expect(JSON.parse(row!['extra'] as string)).toHaveProperty('CIAS');
  });

  it('refuses a name the table has, or a second extra, naming the column', () => {
    expect(() => withColumns(IMAGES, [derivedColumn('map_type', string, 'again', () => null)])).toThrow(
      'schema: column "map_type" cannot be added: images already has one of that name',
    );
    expect(() => withColumns(IMAGES, [idPlusOne, idPlusOne])).toThrow(
      'schema: column "id_plus_one" cannot be added: images already has one of that name',
    );
    expect(() => withColumns(IMAGES, [{ ...idPlusOne, origin: 'unknown-keys' }])).toThrow(
      'schema: column "id_plus_one" cannot be added: images has its extra column',
    );
  });

  it("refuses a name outside [A-Za-z_][A-Za-z0-9_]*: a comma would make diff.csv's changed_fields ambiguous", () => {
    // "score,rank" changed and "score" with "rank" changed would both read `score,rank` in changed_fields
    for (const name of ['score,rank', 'two words', '1st', '', 'année', 'a"b'])
      expect(() => withColumns(IMAGES, [derivedColumn(name, int64, 'a name', () => 1)])).toThrow(
        `schema: column ${JSON.stringify(name)} cannot be added: a column name is letters, digits and _, ` +
          'not starting with a digit (/^[A-Za-z_][A-Za-z0-9_]*$/)',
      );
    expect(withColumns(IMAGES, [derivedColumn('_Score2', int64, 'a name', () => 1)]).names).toContain('_Score2');
  });

  it('refuses a name that is not text (a .mjs pipeline may give anything) as it refuses 1st, not a TypeError', () => {
    for (const name of [42, null, undefined, { name: 'x' }]) {
      const column = { ...derivedColumn('placeholder', int64, 'a name', () => 1), name } as never;
      expect(() => withColumns(IMAGES, [column])).toThrow(
        `schema: column ${String(JSON.stringify(name))} cannot be added: a column name is letters, digits and _, ` +
          'not starting with a digit (/^[A-Za-z_][A-Za-z0-9_]*$/)',
      );
    }
  });

  it('refuses a name that differs from one the table has only in case, which DuckDB takes for it', () => {
    const upper = derivedColumn('ID', int64, 'id times 10', (row) => (row['id'] as number) * 10);
    expect(() => withColumns(IMAGES, [upper])).toThrow(
      'schema: column "ID" cannot be added: images has "id", which differs only in case (DuckDB reads the two as one ' +
        'name); choose another',
    );
    const lower = derivedColumn('score', int64, 'a score', () => 1);
    expect(() => withColumns(IMAGES, [lower, { ...lower, name: 'Score' }])).toThrow(
      'schema: column "Score" cannot be added: images has "score", which differs only in case',
    );
  });

  it("refuses a column whose type is not a column type (a type's name, from a .mjs file), naming the column", () => {
    const named = derivedColumn('year', 'int64' as unknown as ColumnType, 'a year', () => 2020);
    expect(() => withColumns(IMAGES, [named])).toThrow(
      'schema: column "year" cannot be added: its type "int64" is not a column type; give one the library exports ' +
        '(int64, float64, string, boolean, timestamp, category, json)',
    );
  });

  it("a derived value that does not fit the column's type fails the batch with the column's name and the id", () => {
    const wrong = derivedColumn('bad', int64, 'not an integer', () => 'x');
    const table = withColumns(IMAGES, [wrong]);
    const rows = normaliseRecords([fixtures[0]!], emptyNormalisationCounts(), table);
    expect(() => new ArrowBatchBuilder(table).build(rows, 'page 1')).toThrow(
      `load: row 0 (id ${String(fixtures[0]!['id'])}) of page 1: column "bad" holds "x" (string), expected`,
    );
  });
});
