/** `img-etl run <pipeline>` with the definitions in pipelines/ and a user's own file. */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service/index.js';
import { expectedRow, expectRowsMatch } from '../helpers/expected-row.js';
import { startFixtureService } from '../helpers/fixture-service.js';
import { readParquetRows } from '../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { CLI, runCliHere } from '../helpers/run-cli.js';

let service: RunningService;
let out: string;
beforeAll(async () => {
  service = await startFixtureService({ records: 1500, seed: 1 });
});
afterAll(async () => {
  await service?.close();
});
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await removeDir(out);
});

describe('img-etl run', () => {
  it('group-z-t-maps keeps exactly the group-level Z and T maps with a known paradigm', async () => {
    const run = await runCliHere(['run', 'group-z-t-maps', '--base-url', service.url, '--out', out]);
    expect(run.code).toBe(0);
    const wanted = [...service.servedRecords()].filter(
      // NIDM maps have no paradigm field at all: unknown, like null.
      (r) =>
        r['analysis_level'] === 'group' &&
        ['Z map', 'T map'].includes(r['map_type'] as string) &&
        ![null, '', 'None / Other'].includes((r['cognitive_paradigm_cogatlas'] ?? null) as string | null),
    );
    expect(wanted.length).toBeGreaterThan(10);
    expectRowsMatch(
      await readParquetRows(out),
      new Map(wanted.map((r) => [BigInt(r['id'] as number), expectedRow(r)])),
    );
    expect((await readdir(out)).sort()).toEqual(['collections.parquet', 'images.parquet', 'manifest.json']);
  });

  it('all-formats writes Parquet, Arrow and CSV; --to on the command line wins over the pipeline', async () => {
    expect((await runCliHere(['run', 'all-formats', '--base-url', service.url, '--out', out])).code).toBe(0);
    expect((await readdir(out)).sort()).toEqual([
      ...['collections.arrow', 'collections.csv', 'collections.parquet'],
      ...['images.arrow', 'images.csv', 'images.parquet', 'manifest.json'],
    ]);
    const only = join(out, 'csv-only');
    expect(
      (await runCliHere(['run', 'all-formats', '--to', 'csv', '--base-url', service.url, '--out', only])).code,
    ).toBe(0);
    expect((await readdir(only)).sort()).toEqual(['collections.csv', 'images.csv', 'manifest.json']);
  });

  it("runs a user's own pipeline file written in a dozen lines", async () => {
    const file = join(out, 'atlases.mjs');
    const lib = pathToFileURL(join(CLI, '..', '..', 'index.js')).href;
    await writeFile(
      file,
      [
        `import { definePipeline, filterRows } from '${lib}';`,
        'export default definePipeline({',
        "  name: 'atlases',",
        "  description: 'Only atlases, as CSV',",
        "  formats: ['csv', 'parquet'],",
        "  stages: [filterRows((row) => row['image_type'] === 'atlas')],",
        '});',
      ].join('\n'),
    );
    const run = await runCliHere(['run', file, '--base-url', service.url, '--out', join(out, 'data')]);
    expect(run.code).toBe(0);
    const atlases = [...service.servedRecords()].filter((r) => r['image_type'] === 'atlas');
    expect(atlases.length).toBeGreaterThan(0);
    expectRowsMatch(
      await readParquetRows(join(out, 'data')),
      new Map(atlases.map((r) => [BigInt(r['id'] as number), expectedRow(r)])),
    );
  });

  it('an unknown pipeline is a usage error naming the known ones', async () => {
    const run = await runCliHere(['run', 'nope', '--base-url', service.url, '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'img-etl: run: no pipeline named "nope"; known: all-formats, derived-columns, full-snapshot, group-z-t-maps',
    );
  });
  it('a folder named as a pipeline file is a usage error naming it, not EISDIR alone', async () => {
    const folder = join(out, 'pipeline.mjs');
    await mkdir(folder);
    const requests = service.stats.requests;
    const run = await runCliHere(['run', folder, '--base-url', service.url, '--out', join(out, 'snap')]);
    expect(run.stderr).toBe(`img-etl: run: ${folder} is not a regular file (a folder)\n`);
    expect(run.code).toBe(2);
    expect(service.stats.requests).toBe(requests);
  });

  it('an error a pipeline throws is told in one line, also when its message holds line breaks', async () => {
    const file = join(out, 'throws.mjs');
    await writeFile(
      file,
      [
        'export default {',
        "  name: 'throws',",
        "  description: 'A stage that fails',",
        '  stages: [',
        '    async function* (batches) {',
        "      for await (const _ of batches) throw new Error('bad row\\n    at somewhere (file.js:1:1)');",
        '    },',
        '  ],',
        '};',
      ].join('\n'),
    );
    const run = await runCliHere(['run', file, '--base-url', service.url, '--out', join(out, 'data'), '--quiet']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('img-etl: load: stage 1 failed: bad row at somewhere (file.js:1:1)\n');

    const atImport = join(out, 'import-throws.mjs');
    await writeFile(atImport, "throw new Error('first\\nsecond');\n");
    const loaded = await runCliHere(['run', atImport, '--base-url', service.url, '--out', join(out, 'data')]);
    expect(loaded.code).toBe(1);
    expect(loaded.stderr).toBe(`img-etl: run: ${atImport} failed as it was imported: first second\n`);

    const cut = join(out, 'cut-short.mjs');
    await writeFile(cut, "export default { name: 'cut',\n");
    const syntax = await runCliHere(['run', cut, '--base-url', service.url, '--out', join(out, 'data')]);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toBe(`img-etl: run: ${cut}:2: SyntaxError: Unexpected end of input\n`);
  });

  it('a syntax error is a usage error naming the file, line and column, also in a module it imports', async () => {
    const file = join(out, 'typo.mjs');
    const lines = [
      'export default {',
      "  name: 'typo',",
      "  description: 'a comma missing'",
      "  formats: ['csv'],",
      '};',
    ];
    await writeFile(file, lines.join('\n'));
    service.resetStats();
    const run = await runCliHere(['run', file, '--base-url', service.url, '--out', join(out, 'data')]);
    expect(run.stderr).toBe(`img-etl: run: ${file}:4:3: SyntaxError: Unexpected identifier 'formats'\n`);
    expect(run.code).toBe(2);
    expect(service.stats.requests).toBe(0);

    const helper = join(out, 'helpers', 'rule.mjs');
    await mkdir(join(out, 'helpers'));
    await writeFile(helper, "export const keep = (row) =>\n\trow['image_type'] === 'atlas' &&;\n");
    const importing = join(out, 'importing.mjs');
    await writeFile(
      importing,
      [
        "import { keep } from './helpers/rule.mjs';",
        "export default { name: 'atlases', description: 'atlases', stages: [keep] };",
      ].join('\n'),
    );
    const imported = await runCliHere(['run', importing, '--base-url', service.url, '--out', join(out, 'data')]);
    expect(imported.stderr).toBe(`img-etl: run: ${helper}:2:34: SyntaxError: Unexpected token ';'\n`);
    expect(imported.code).toBe(2);
  });

  it("a pipeline file's stages or sinks not a list: a usage error naming the file, before any fetch", async () => {
    const file = join(out, 'text-stages.mjs');
    await writeFile(file, "export default { name: 'text', description: 'a stage as text', stages: 'keep' };\n");
    service.resetStats();
    const run = await runCliHere(['run', file, '--base-url', service.url, '--out', join(out, 'data')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `img-etl: run: ${file}: pipeline "text": stages must be a list of stage functions (async generator functions ` +
        'of the batches); got "keep"\n',
    );
    expect(service.stats.listRequests).toBe(0);
    const sinks = join(out, 'text-sinks.mjs');
    await writeFile(sinks, "export default { name: 'text', description: 'a sink as text', sinks: ['out.csv'] };\n");
    const sinkRun = await runCliHere(['run', sinks, '--base-url', service.url, '--out', join(out, 'data')]);
    expect(sinkRun.code).toBe(2);
    expect(sinkRun.stderr).toBe(
      `img-etl: run: ${sinks}: pipeline "text": sinks must be a list of sinks (rowSink(…), objects with an open ` +
        'function); item 1 is "out.csv"\n',
    );
    expect(await readdir(out)).not.toContain('data');
  });

  it("a pipeline file's formats not a list of img-etl's is a usage error naming the file, not --to", async () => {
    const file = join(out, 'text-formats.mjs');
    await writeFile(file, "export default { name: 'text', description: 'formats as text', formats: 'csv' };\n");
    const run = await runCliHere(['run', file, '--base-url', service.url, '--out', join(out, 'data')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `img-etl: run: ${file}: formats must be a non-empty list of parquet, arrow, csv; got "csv"\n`,
    );
  });

  it('with --log-format json, an unknown pipeline is a JSON error line too', async () => {
    const run = await runCliHere(['run', 'nope', '--base-url', service.url, '--out', out, '--log-format', 'json']);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'error', event: 'error', exit_code: 2 });
    expect(line['message']).toMatch(/^run: no pipeline named "nope"/);
  });
  it("--dry-run estimates the sizes of what the pipeline writes: its stages' rows, its columns", async () => {
    const plan = async (args: string[]) => {
      const run = await runCliHere([...args, '--dry-run', '--summary', 'json', '--quiet', '--base-url', service.url]);
      expect(run.code).toBe(0);
      return (JSON.parse(run.stdout) as { estimated_bytes: { parquet: number } }).estimated_bytes.parquet;
    };
    const full = await plan(['run', 'full-snapshot', '--out', out]);
    const kept = [...service.servedRecords()].filter(
      (r) =>
        r['analysis_level'] === 'group' &&
        (r['map_type'] === 'Z map' || r['map_type'] === 'T map') &&
        r['cognitive_paradigm_cogatlas'] !== null &&
        r['cognitive_paradigm_cogatlas'] !== 'None / Other',
    );
    expect(kept.length).toBeLessThan(1500 / 2);
    expect(await plan(['run', 'group-z-t-maps', '--out', out])).toBeLessThan(full / 2);
    expect(await plan(['run', 'derived-columns', '--out', out])).toBeGreaterThan(full);
  });
});
