/**
 * A pipeline's derived column whose function throws for one record, on a library run in process against the bundled
 * service over loopback HTTP: the run fails in one line naming the column and the record (docs/library.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  definePipeline,
  derivedColumn,
  emptyNormalisationCounts,
  float64,
  IMAGES,
  int64,
  json,
  runPipeline,
  startService,
  string,
  withColumns,
  type RowValue,
} from '../../src/index.js';
import { normaliseRecords } from '../../src/transform/normalise.js';
import { fixtureRecords } from '../helpers/fixture-records.js';
import type { RunningService } from '../../src/service/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';

let service: RunningService;
let outDir: string;
beforeAll(async () => {
  service = await startService({ records: 300, seed: 41 });
  outDir = await tempDir();
});
afterAll(async () => {
  await service?.close();
  await removeDir(outDir);
});

describe('a derived column whose function throws for one record', () => {
  it("fails the run with the column's name, the record's id and the function's reason", async () => {
    const ids = [...service.servedRecords()].map((r) => r['id'] as number);
    const bad = ids[123]!;
    const ratio = derivedColumn('ratio', float64, 'a ratio', (row) => {
      // as a user's slip reads a key of something absent
      if (row['id'] === bad) return (undefined as unknown as { x: number }).x;
      return 1;
    });
    const pipeline = definePipeline({ name: 'ratios', description: 'every image, a ratio', columns: [ratio] });
    const error = await runPipeline(pipeline, { baseUrl: service.url, outDir, pageSize: 100 }).then(
      () => new Error('the run succeeded'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toBe(
      `schema: derived column "ratio" failed for the record id ${bad}: ` +
        "Cannot read properties of undefined (reading 'x')",
    );
  });
});

describe('a derived column whose function is async', () => {
  it("fails with the column's name and the record's id, saying it returned a Promise", () => {
    const later = derivedColumn('later', int64, 'an async slip', (async () => 1) as unknown as () => RowValue);
    const [record] = fixtureRecords;
    expect(() => normaliseRecords([record!], emptyNormalisationCounts(), withColumns(IMAGES, [later]))).toThrow(
      `schema: derived column "later" failed for the record id ${String(record!['id'])}: it returned a Promise ` +
        '(an async function?): a derived column gives its value at once',
    );
  });
});

describe('a derived json column whose value is not JSON text', () => {
  it("fails the run with the column's name and the record's id, where load.sql's JSON cast would fail", async () => {
    const ids = [...service.servedRecords()].map((r) => r['id'] as number);
    const bad = ids[7]!;
    const note = derivedColumn('note', json, 'a JSON note', (row) =>
      row['id'] === bad ? 'not json' : JSON.stringify({ id: row['id'] }),
    );
    const pipeline = definePipeline({ name: 'notes', description: 'every image, a note', columns: [note] });
    const error = await runPipeline(pipeline, { baseUrl: service.url, outDir: `${outDir}/notes` }).then(
      () => new Error('the run succeeded'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toBe(
      `schema: derived column "note" failed for the record id ${bad}: it returned "not json", which is not JSON ` +
        "text (a json column holds JSON.stringify of a value), and the loaders' JSON reading of it would fail",
    );
  });
});

describe('a derived text column whose value has a lone surrogate', () => {
  it('fails the run naming the column, the id and the place, where every format would write U+FFFD', async () => {
    const ids = [...service.servedRecords()].map((r) => r['id'] as number);
    const bad = ids[3]!;
    const cut = derivedColumn('cut', string, 'a name cut in the middle of a pair', (row) =>
      row['id'] === bad ? '😀'.slice(0, 1) + 'x' : 'ok 😀',
    );
    const pipeline = definePipeline({ name: 'cut', description: 'every image, a cut name', columns: [cut] });
    const error = await runPipeline(pipeline, { baseUrl: service.url, outDir: `${outDir}/cut` }).then(
      () => new Error('the run succeeded'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toBe(
      `schema: derived column "cut" failed for the record id ${bad}: it returned text with a lone surrogate ` +
        '(\\ud83d at 0), which UTF-8 cannot hold: every format would write U+FFFD in its place',
    );
  });
});
