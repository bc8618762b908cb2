import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { COLUMNS } from '../../../src/schema/columns.js';
import type { Row } from '../../../src/schema/row.js';
import { toCsv, type CsvEngine } from '../../../src/load/csv/to-csv.js';
import { LoadError } from '../../../src/text/load-error.js';
import {
  duckValue,
  exactSelectList,
  expectResultMatchesFile,
  expectSameRows,
  listDir,
  openDuckDB,
  query,
  removeDir,
  sqlString,
  tempDir,
} from '../../helpers/readers.js';
import { fixtureBatches, fixtureRows, makeRow, streamOf } from '../fixture-rows.js';

const DUCK_TYPES: Record<string, string> = {
  int64: 'BIGINT',
  float64: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMPTZ',
  string: 'VARCHAR',
  category: 'VARCHAR',
  json: 'VARCHAR',
};

/** read_csv with the column types given, so that the test checks values rather than DuckDB's sniffer. */
function readCsv(path: string): string {
  const columns = `{${COLUMNS.map((c) => `${sqlString(c.name)}: ${sqlString(DUCK_TYPES[c.type.kind]!)}`).join(', ')}}`;
  return (
    `read_csv(${sqlString(path)}, header = true, delim = ',', quote = '"', escape = '"', ` +
    `columns = ${columns}, allow_quoted_nulls = false, auto_detect = false)`
  );
}

const ENGINES: CsvEngine[] = ['builtin', 'csv-stringify'];

const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** What a string reads back as: with a `'` in front when it starts like a formula and neutralisation is on. */
function expectedText(neutralise: boolean) {
  return (kind: string, v: unknown): unknown =>
    neutralise && typeof v === 'string' && kind !== 'timestamp' && FORMULA_START.test(v) ? `'${v}` : duckValue(kind, v);
}

let duck: DuckDBConnection;
let dir: string;
beforeAll(async () => {
  duck = await openDuckDB();
});
afterAll(() => duck.closeSync());
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

describe('toCsv', () => {
  for (const engine of ENGINES)
    for (const neutraliseFormulas of [true, false]) {
      it(
        `writes RFC 4180 CSV that DuckDB reads back value by value (engine ${engine}, ` +
          `neutraliseFormulas ${neutraliseFormulas})`,
        async () => {
          const path = join(dir, 'images.csv');
          const result = await toCsv(streamOf(fixtureBatches()), { path, engine, neutraliseFormulas });
          const rows = fixtureRows();
          expect(result).toMatchObject({ format: 'csv', path, rows: rows.length });
          await expectResultMatchesFile(result);
          expect(await listDir(dir)).toEqual(['images.csv']);
          const read = await query(duck, `SELECT ${exactSelectList()} FROM ${readCsv(path)}`);
          expectSameRows(read, rows, expectedText(neutraliseFormulas));
        },
      );
    }

  it(
    'neutralises formulas by default, quotes only what needs it, ends records with LF, ' + 'keeps null and "" apart',
    async () => {
      const path = join(dir, 'images.csv');
      const row: Row = makeRow(1, 0, 0, true);
      Object.assign(row, {
        id: -42,
        file_size: 2 ** 40,
        age: -1.5,
        BMI: 1e-7,
        fat_percentage: -0,
        is_valid: false,
        not_mni: true,
        add_date: -1n,
        modify_date: 1453396917860138n,
        url: '=HYPERLINK("http://evil")',
        file: '+cmd',
        collection: '-minus',
        name: '@at',
        description: '\ttab',
        figure: '\rcr',
        contrast_definition: 'plain',
        contrast_definition_cogatlas: 'has,comma',
        cognitive_paradigm_name: 'has "quote"',
        cognitive_paradigm_short_description: 'two\nlines',
        thumbnail: '',
        map_type: '-category',
        extra: '{"a":"b,c"}',
      });
      await toCsv(streamOf([{ source: { url: 'u', offset: 0 }, rows: [row], rejects: [] }]), { path });
      const text = await readFile(path, 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      expect(text.includes('\r\n')).toBe(false);
      const [header, ...rest] = text.split('\n');
      expect(header).toBe(COLUMNS.map((c) => c.name).join(','));
      const record = rest.join('\n');
      const field = (name: string, csv: string) => expect(record, name).toContain(csv);
      expect(record.startsWith(`"'=HYPERLINK(""http://evil"")",-42,'+cmd,`)).toBe(true);
      field('collection', `,'-minus,`);
      field('name', `,'@at,`);
      field('description', `,'\ttab,1969-`);
      field('figure', `,"'\rcr",`);
      field('file_size', `,${2 ** 40},`);
      field('age', `,-1.5,`);
      field('BMI', `,1e-7,`);
      field('fat_percentage', `,-0,`);
      field('add_date', `,1969-12-31T23:59:59.999999Z,2016-01-21T17:21:57.860138Z,false,`);
      field('contrast_definition_cogatlas', `,plain,"has,comma",`);
      field('cognitive_paradigm_name', `"has ""quote"""`);
      field('cognitive_paradigm_short_description', `"two\nlines"`);
      field('thumbnail', `,"",`);
      field('map_type', `,'-category,`);
      field('extra', `,"{""a"":""b,c""}"\n`);
      field('null columns', `,,`);

      const read = await query(
        duck,
        `SELECT thumbnail, reduced_representation, fat_percentage, id FROM ${readCsv(path)}`,
      );
      expect(read).toEqual([{ thumbnail: '', reduced_representation: null, fat_percentage: -0, id: -42n }]);
      expect(Object.is(read[0]!['fat_percentage'], -0)).toBe(true);
    },
  );

  it('writes the same bytes with either engine', async () => {
    const [builtin, reference] = [join(dir, 'builtin.csv'), join(dir, 'reference.csv')];
    const results = [
      await toCsv(streamOf(fixtureBatches()), { path: builtin, engine: 'builtin' }),
      await toCsv(streamOf(fixtureBatches()), { path: reference, engine: 'csv-stringify' }),
    ];
    expect(await readFile(builtin)).toEqual(await readFile(reference));
    expect(results[0]!.sha256).toBe(results[1]!.sha256);
  });

  it('refuses an unknown engine and leaves no file', async () => {
    const error = await toCsv(streamOf(fixtureBatches()), {
      path: join(dir, 'x.csv'),
      engine: 'papaparse' as CsvEngine,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LoadError);
    expect((error as LoadError).code).toBe('LOAD_INVALID_OPTION');
    expect(await listDir(dir)).toEqual([]);
  });

  it('writes only the header for a stream without rows', async () => {
    const path = join(dir, 'empty.csv');
    const result = await toCsv(streamOf([{ source: { url: 'u', offset: 0 }, rows: [], rejects: [] }]), { path });
    expect(result.rows).toBe(0);
    expect(await readFile(path, 'utf8')).toBe(COLUMNS.map((c) => c.name).join(',') + '\n');
    await expectResultMatchesFile(result);
  });

  it.each(ENGINES)('refuses a value of the wrong type and leaves no file (engine %s)', async (engine) => {
    const row = makeRow(5, 0, 0);
    row['add_date'] = 1453396917860;
    const error = await toCsv(streamOf([{ source: { url: 'http://x/page', offset: 0 }, rows: [row], rejects: [] }]), {
      path: join(dir, 'bad.csv'),
      engine,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LoadError);
    expect((error as LoadError).code).toBe('LOAD_INVALID_VALUE');
    expect((error as LoadError).message).toBe(
      'load: row 0 (id 5) of http://x/page: column "add_date" holds 1453396917860 (number), ' +
        'expected bigint microseconds within int64',
    );
    expect(await listDir(dir)).toEqual([]);
  });
});
