/**
 * docs/loading.md, executed: every code block runs against a real snapshot; the README's Loading section shows some of
 * them, word for word. DuckDB is a dev dependency; the Python blocks run in the test set-up's venv (pandas 3, pyarrow,
 * polars), the load.py block with Debian's pandas 1.5 without pyarrow; where the set-up could not install those, their
 * tests skip saying why.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import { COLUMNS, type ColumnKind } from '../../src/schema/columns.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { allPages } from '../service/http.js';
import { openDuckDB, query, removeDir, tempDir } from '../helpers/readers.js';
import { runCli } from '../helpers/run-cli.js';
import { DEBIAN_PYTHON, missingTools, VENV_PYTHON } from '../helpers/test-tools.js';

/** The Python and SQL code blocks of a Markdown text. */
const blocksOf = (text: string) =>
  [...text.matchAll(/```(python|sql)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, code: m[2]! }));
const blocks = blocksOf(readFileSync(new URL('../../docs/loading.md', import.meta.url), 'utf8'));
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const readmeLoading = readme.slice(readme.indexOf('## Loading'), readme.indexOf('## Scheduling'));
const readmeBlocks = blocksOf(readmeLoading);

/** Blocks that use a snapshot folder's loaders (load.sql, load.py) rather than the files. */
const usesLoader = (code: string) => /^import load$|load\.sql/m.test(code);

const modulesOf = (code: string) => {
  if (usesLoader(code)) return ['pandas']; // load.py imports pandas, and reads CSV where there is no pyarrow
  const modules = [...code.matchAll(/^import (\w+)/gm)].map((m) => m[1]!);
  if (/read_parquet|read_feather/.test(code) && modules.includes('pandas')) modules.push('pyarrow');
  return modules;
};

/** The SQL statements of a block, its comment lines left out. */
function statementsOf(code: string): string[] {
  const sql = code
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n');
  return sql
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

let service: RunningService;
let cwd: string;
const RECORDS = 359;

beforeAll(async () => {
  service = await startFixtureService({ records: 300, seed: 41 });
  cwd = await tempDir();
  const run = await runCli(['--base-url', service.url, '--out', 'output', '--to', 'parquet,arrow,csv'], { cwd });
  expect(run.code).toBe(0);
  const args = ['--base-url', service.url, '--out', 'snapshots', '--snapshot', '--to', 'parquet,csv'];
  const snapshot = await runCli(args, { cwd });
  expect(snapshot.code).toBe(0);
});
afterAll(async () => {
  await service?.close();
  await removeDir(cwd);
});

describe('docs/loading.md', () => {
  it(
    'has DuckDB blocks (files, load.sql) and Python blocks: ' +
      'pandas (Parquet/Arrow), pandas (CSV), polars (Parquet/Arrow), polars (CSV), the join, load.py',
    () => {
      expect(blocks.filter((b) => b.lang === 'sql').map((b) => usesLoader(b.code))).toEqual([false, true]);
      const named = (code: string) => (usesLoader(code) ? 'load.py' : modulesOf(code).join('+'));
      const python = blocks.filter((b) => b.lang === 'python').map((b) => named(b.code));
      expect(python).toEqual(['pandas+pyarrow', 'pandas', 'polars', 'polars', 'pandas+pyarrow', 'load.py']);
    },
  );

  it("the README's Loading blocks are docs/loading.md's (a Python block whole, SQL statement by statement)", () => {
    expect(readmeBlocks.map((b) => b.lang)).toEqual(['sql', 'python']);
    const statements = blocks.filter((b) => b.lang === 'sql').flatMap((b) => statementsOf(b.code));
    for (const block of readmeBlocks) {
      if (block.lang === 'python') expect(blocks.map((b) => b.code)).toContain(block.code);
      else for (const sql of statementsOf(block.code)) expect(statements).toContain(sql);
    }
  });

  it('DuckDB with load.sql: the views answer as the files do', async () => {
    const db = await openDuckDB();
    const code = blocks.find((b) => b.lang === 'sql' && usesLoader(b.code))!.code;
    const folder = join(cwd, 'snapshots', 'latest');
    const [set, ...queries] = statementsOf(code.replaceAll("'snapshots/latest'", `'${folder}'`));
    await query(db, set!);
    await db.run(readFileSync(join(folder, 'load.sql'), 'utf8'));
    const [byType, other] = [await query(db, queries[0]!), await query(db, queries[1]!)];
    expect(byType.reduce((n, r) => n + Number(r['maps']), 0)).toBe(RECORDS);
    const served = [...service.servedRecords()];
    expect(Number(other[0]!['other_paradigm'])).toBe(
      served.filter((r) => r['cognitive_paradigm_cogatlas'] === 'None / Other').length,
    );
  });

  it('DuckDB: every statement runs against the snapshot and gives the expected answers', async () => {
    const db = await openDuckDB();
    const statements = statementsOf(blocks.find((b) => b.lang === 'sql' && !usesLoader(b.code))!.code);
    const results = [];
    for (const sql of statements) results.push(await query(db, sql.replaceAll("'output/", `'${join(cwd, 'output')}/`)));
    const [byType, cias, other, csv, joined] = results;
    expect(byType!.reduce((n, r) => n + Number(r['maps']), 0)).toBe(RECORDS);
    expect(cias!.length).toBeGreaterThan(0);
    const served = [...service.servedRecords()];
    expect(Number(other![0]!['other_paradigm'])).toBe(
      served.filter((r) => r['cognitive_paradigm_cogatlas'] === 'None / Other').length,
    );
    expect(Number(csv![0]!['rows'])).toBe(RECORDS);

    // The join: every map gets the DOI, authors, journal and owner its collection was served with.
    const collections = (await allPages(`${service.url}/api/collections/?limit=1000`)).flatMap((p) => p.results);
    const byId = new Map(collections.map((c) => [c['id'] as number, c]));
    const nullIfEmpty = (v: unknown) => (v === '' ? null : v);
    const ids = served.map((r) => BigInt(r['id'] as number)).sort((a, b) => (a < b ? -1 : 1));
    expect(joined!.map((r) => r['id'])).toEqual(ids);
    for (const row of joined!) {
      const image = served.find((r) => BigInt(r['id'] as number) === row['id'])!;
      const collection = byId.get(image['collection_id'] as number)!;
      expect(collection, `collection of image ${String(row['id'])}`).toBeDefined();
      const want = {
        DOI: nullIfEmpty(collection['DOI']),
        authors: nullIfEmpty(collection['authors']),
        journal_name: nullIfEmpty(collection['journal_name']),
        owner: BigInt(collection['owner'] as number),
        owner_name: collection['owner_name'],
      };
      const got = Object.fromEntries(Object.keys(want).map((key) => [key, row[key]]));
      expect(got).toEqual(want);
    }
    expect(joined!.filter((r) => r['DOI'] !== null).length).toBeGreaterThan(0);
  });

  for (const block of blocks.filter((b) => b.lang === 'python')) {
    const loader = usesLoader(block.code); // load.py: with Debian's pandas 1.5 and no pyarrow
    const python = loader ? DEBIAN_PYTHON : VENV_PYTHON;
    const what = loader ? "load.py on Debian's pandas" : modulesOf(block.code).join(' + ');
    it(`Python with ${what}: the block runs and reads every row with exact types`, (ctx) => {
      const missing = missingTools([loader ? 'python3-pandas' : 'venv']);
      if (missing !== undefined) ctx.skip(missing);
      const output = execFileSync(python, ['-c', block.code], { cwd, encoding: 'utf8' }).trim().split(/\s+/);
      expect(output[0]).toBe(String(RECORDS));
      expect(output.join(' ')).toMatch(/UTC|datetime\[μs, UTC\]/);
    });
  }

  it("the README's pandas CSV call reads the dates as UTC datetimes and every name as served", (ctx) => {
    const missing = missingTools(['venv']);
    if (missing !== undefined) ctx.skip(missing);
    const calls = [...readmeLoading.matchAll(/`(pd\.read_csv\([^`]*\))`/g)].map((m) => m[1]!.replace(/\s+/g, ' '));
    expect(calls).toHaveLength(1);
    const code = [
      'import json, pandas as pd',
      `df = ${calls[0]!}`,
      'print(json.dumps({"dtypes": [str(df[c].dtype) for c in ("add_date", "modify_date")],',
      '                  "rows": len(df), "names": int(df["name"].notna().sum())}))',
    ];
    const output = execFileSync(VENV_PYTHON, ['-c', code.join('\n')], { cwd, encoding: 'utf8' });
    const got = JSON.parse(output) as { dtypes: string[]; rows: number; names: number };
    const names = [...service.servedRecords()].filter((r) => typeof r['name'] === 'string' && r['name'] !== '');
    expect(got).toEqual({
      dtypes: [expect.stringMatching(/^datetime64\[\w+, UTC\]$/), expect.any(String)],
      rows: RECORDS,
      names: names.length,
    });
    expect(got.dtypes[1]).toBe(got.dtypes[0]);
  });

  it("polars from CSV: the block gives each column its type's dtype and the values of images.parquet", (ctx) => {
    const missing = missingTools(['venv']);
    if (missing !== undefined) ctx.skip(missing);
    const block = blocks.find((b) => b.lang === 'python' && /^import polars/m.test(b.code) && /read_csv/.test(b.code));
    expect(block, 'a polars block reading images.csv').toBeDefined();
    const check = [
      'import json',
      'parquet = pl.read_parquet("output/images.parquet")',
      'same = lambda c: df[c].cast(pl.String).equals(parquet[c].cast(pl.String))',
      'print(json.dumps({"dtypes": {c: str(t) for c, t in df.schema.items()},',
      '                  "differ": [c for c in df.columns if not same(c)], "values": df.count().row(0)}))',
    ];
    const output = execFileSync(VENV_PYTHON, ['-c', `${block!.code}\n${check.join('\n')}`], { cwd, encoding: 'utf8' });
    const got = JSON.parse(output.trim().split('\n').at(-1)!) as { dtypes: object; differ: string[]; values: number[] };
    const dtypes: Record<ColumnKind, string> = {
      int64: 'Int64',
      float64: 'Float64',
      boolean: 'Boolean',
      timestamp: "Datetime(time_unit='us', time_zone='UTC')",
      category: 'Categorical',
      string: 'String',
      json: 'String',
    };
    expect(got.dtypes).toEqual(Object.fromEntries(COLUMNS.map((c) => [c.name, dtypes[c.type.kind]])));
    expect(got.differ).toEqual([]);
    const sparse = ['age', 'BMI', 'fat_percentage'].map((c) => got.values[COLUMNS.findIndex((k) => k.name === c)]);
    expect(sparse.every((n) => n! > 0)).toBe(true); // the usually-null floats hold values, read as Float64
  });
});
