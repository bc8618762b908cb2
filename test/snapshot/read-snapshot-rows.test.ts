import { mkdir, readFile, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiffError } from '../../src/snapshot/diff-error.js';
import { diffSnapshots } from '../../src/diff/diff-snapshots.js';
import { readSnapshotRows, type SnapshotRows } from '../../src/snapshot/read-snapshot-rows.js';
import { resolveSnapshotFile } from '../../src/snapshot/resolve-snapshot-file.js';
import { TOOL_NAME } from '../../src/snapshot/tool.js';
import { toArrowBatches } from '../../src/load/arrow/arrow-batches.js';
import { toArrow } from '../../src/load/arrow/to-arrow.js';
import { toParquet, type ParquetEngine } from '../../src/load/parquet/to-parquet.js';
import { toCsv } from '../../src/load/csv/to-csv.js';
import type { Row, RowBatch } from '../../src/schema/row.js';
import { arrowValues } from '../helpers/arrow-values.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { fixtureBatches, streamOf, timestampsFor } from '../load/fixture-rows.js';
import { collect, drain } from '../diff/sides.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

/**
 * The load tests' fixture (every column kind and edge case, categories first seen in later batches, an empty batch),
 * with an id in every row; with the timestamps a Parquet engine writes (parquetjs: none before 1970).
 */
function snapshotBatches(engine: ParquetEngine = 'wasm'): RowBatch[] {
  const batches = fixtureBatches(timestampsFor(engine));
  let id = 0;
  for (const batch of batches) for (const row of batch.rows) row['id'] = ++id;
  return batches;
}

const METADATA = { 'img-etl.schema_version': '1' };

async function writeSnapshot(
  folder: string,
  format: 'parquet' | 'arrow' | 'csv',
  batches: RowBatch[],
  engine: ParquetEngine = 'wasm',
): Promise<string> {
  await mkdir(folder, { recursive: true });
  const source = toArrowBatches(streamOf(batches));
  if (format === 'parquet')
    await toParquet(source, { path: join(folder, 'images.parquet'), engine, rowGroupSize: 10, metadata: METADATA });
  else if (format === 'arrow') await toArrow(source, { path: join(folder, 'images.arrow'), metadata: METADATA });
  else await toCsv(streamOf(batches), { path: join(folder, 'images.csv') });
  return folder;
}

/** Every value of every column of a snapshot, timestamps exact, categories as text. */
async function readAll(rows: SnapshotRows): Promise<Record<string, unknown[]>> {
  const columns: Record<string, unknown[]> = {};
  for await (const batch of rows.batches) {
    for (const field of batch.schema.fields)
      (columns[field.name] ??= []).push(...arrowValues(batch.getChild(field.name)!));
  }
  return columns;
}

describe('readSnapshotRows', () => {
  const engines: ParquetEngine[] = ['wasm', 'parquetjs'];
  it.each(engines)('reads Parquet (%s) and Arrow IPC to the same exact values, in small batches', async (engine) => {
    const batches = snapshotBatches(engine);
    const folder = await writeSnapshot(join(dir, engine), 'parquet', batches, engine);
    const parquet = await readSnapshotRows(folder, { batchSize: 7 });
    const arrow = await readSnapshotRows(await writeSnapshot(join(dir, 'arrow'), 'arrow', batches));
    expect([parquet.format, arrow.format]).toEqual(['parquet', 'arrow']);
    expect([parquet.rows, arrow.rows]).toEqual([36, undefined]);
    expect(parquet.schema.metadata.get('img-etl.schema_version')).toBe('1');
    const expected = await readAll(arrow);
    expect(expected['id']).toEqual(Array.from({ length: 36 }, (_, i) => BigInt(i + 1)));
    expect(await readAll(parquet)).toEqual(expected); // parquetjs-lite writes categories as plain strings: same text
  });

  it.each(['wasm', 'parquetjs', 'arrow'] as const)(
    'reads only the batches holding the rows asked for (%s), whole, and from Parquet only their row groups',
    async (writer) => {
      const batches = snapshotBatches(writer === 'parquetjs' ? 'parquetjs' : 'wasm');
      const folder = join(dir, writer);
      if (writer === 'arrow') await writeSnapshot(folder, 'arrow', batches);
      else await writeSnapshot(folder, 'parquet', batches, writer);
      const all = await readAll(await readSnapshotRows(folder));
      // Row groups of 10 rows: rows in the first, none in the second, runs across the third and fourth.
      for (const positions of [[0, 3, 4, 5, 9, 27, 28, 29, 30, 31, 35], [12], [], [35]]) {
        const read = await readSnapshotRows(folder, { positions, batchSize: 4 });
        const places: number[][] = []; // each batch's rows, by place in the file (ids are 1, 2, … in file order)
        const columns: Record<string, unknown[]> = {};
        for await (const batch of read.batches) {
          places.push(arrowValues(batch.getChild('id')!).map((id) => Number(id) - 1));
          for (const field of batch.schema.fields)
            (columns[field.name] ??= []).push(...arrowValues(batch.getChild(field.name)!));
        }
        const got = places.flat();
        expect(positions.filter((p) => !got.includes(p))).toEqual([]);
        for (const rows of places) expect(rows.some((p) => positions.includes(p))).toBe(true);
        const groups = new Set(positions.map((p) => Math.floor(p / 10)));
        if (writer !== 'arrow') expect(got.filter((p) => !groups.has(Math.floor(p / 10)))).toEqual([]);
        const want = Object.fromEntries(Object.entries(all).map(([c, v]) => [c, got.map((p) => v[p])]));
        expect(got.length === 0 ? {} : columns).toEqual(got.length === 0 ? {} : want);
        await read.close();
      }
    },
  );

  it.each<{ name: string; timestamps: ParquetEngine; writers: ('arrow' | ParquetEngine)[] }>([
    { name: 'wasm and arrow', timestamps: 'wasm', writers: ['wasm', 'arrow'] },
    { name: 'wasm, parquetjs and arrow', timestamps: 'parquetjs', writers: ['wasm', 'parquetjs', 'arrow'] },
  ])('gives an empty diff between one snapshot in each engine and format ($name)', async ({ timestamps, writers }) => {
    const batches = snapshotBatches(timestamps);
    const paths: string[] = [];
    for (const writer of writers) {
      const folder = join(dir, writer);
      if (writer === 'arrow') paths.push(await writeSnapshot(folder, 'arrow', batches));
      else paths.push(await writeSnapshot(folder, 'parquet', batches, writer));
    }
    for (let a = 0; a < paths.length; a++) {
      const b = (a + 1) % paths.length;
      const diff = diffSnapshots(
        await readSnapshotRows(paths[a]!, { batchSize: 5 }),
        await readSnapshotRows(paths[b]!, { batchSize: 8 }),
      );
      expect((await collect(diff)).entries).toEqual([]);
      expect(diff.totals).toMatchObject({ added: 0, removed: 0, changed: 0, unchanged: 36, oldRows: 36, newRows: 36 });
      expect(diff.schema).toMatchObject({ onlyInOld: [], onlyInNew: [], retyped: [] });
    }
  });

  it(
    'finds exactly the records added, removed and changed between a Parquet and an Arrow ' +
      'snapshot, with the changed fields',
    async () => {
      const old = snapshotBatches();
      const now = snapshotBatches();
      const rows = now.flatMap((b) => b.rows);
      const byId = (id: number): Row => rows.find((r) => r['id'] === id)!;
      byId(2)['name'] = `${String(byId(2)['name'])}!`;
      byId(5)['add_date'] = (byId(5)['add_date'] as bigint) + 1n; // one microsecond
      byId(6)['map_type'] = byId(6)['map_type'] === 'T map' ? 'Z map' : 'T map';
      byId(8)['is_valid'] = !byId(8)['is_valid'];
      byId(8)['extra'] = '{"CIAS":1}';
      const zero = rows.find((r) => Object.is(r['age'], 0) && (r['id'] as number) > 10)!;
      zero['age'] = -0;
      now[0]!.rows.splice(now[0]!.rows.indexOf(byId(3)), 1); // removed
      now[3]!.rows.push({ ...byId(36), id: 40 }); // added
      const diff = diffSnapshots(
        await readSnapshotRows(await writeSnapshot(join(dir, 'old'), 'parquet', old)),
        await readSnapshotRows(await writeSnapshot(join(dir, 'new'), 'arrow', now)),
      );
      const { entries } = await collect(diff);
      // Each names its record by the new side's collection_id and name, a removed one by the old side's.
      const named = (id: number, side = now.flatMap((b) => b.rows)) => {
        const row = side.find((r) => r['id'] === id)!;
        return { collection_id: row['collection_id'], name: row['name'] };
      };
      const oldRows = old.flatMap((b) => b.rows);
      expect(entries).toEqual(
        [
          { id: 2, change: 'changed', changed_fields: ['name'], context: named(2) },
          { id: 3, change: 'removed', changed_fields: [], context: named(3, oldRows) },
          { id: 5, change: 'changed', changed_fields: ['add_date'], context: named(5) },
          { id: 6, change: 'changed', changed_fields: ['map_type'], context: named(6) },
          { id: 8, change: 'changed', changed_fields: ['is_valid', 'extra'], context: named(8) },
          {
            id: zero['id'] as number,
            change: 'changed',
            changed_fields: ['age'],
            context: named(zero['id'] as number),
          },
          { id: 40, change: 'added', changed_fields: [], context: named(40) },
        ].sort((a, b) => a.id - b.id),
      );
      expect(named(2).name).toMatch(/!$/);
      expect(diff.totals).toMatchObject({ added: 1, removed: 1, changed: 5, unchanged: 30 });
    },
  );

  it('stops reading and releases the file when the reader stops early, and close is safe afterwards', async () => {
    const rows = await readSnapshotRows(await writeSnapshot(join(dir, 's'), 'parquet', snapshotBatches()), {
      batchSize: 4,
    });
    for await (const batch of rows.batches) {
      expect(batch.numRows).toBe(4);
      break;
    }
    await rows.close();
    await rows.close();
    const arrow = await readSnapshotRows(await writeSnapshot(join(dir, 'a'), 'arrow', snapshotBatches()));
    await arrow.close(); // before reading: nothing to read any more
    expect(await drain(arrow.batches)).toBe(0);
  });
});

describe('resolveSnapshotFile', () => {
  it('takes the data file its manifest lists, never an unlisted images.parquet beside it', async () => {
    // A --to arrow snapshot with someone's images.parquet beside it (another snapshot's, copied in): read, it would be
    // diffed, reported and its files fetched as this snapshot's, unchecked (its manifest does not list it).
    const folder = await writeSnapshot(join(dir, 'arrow'), 'arrow', snapshotBatches());
    await writeSnapshot(folder, 'parquet', snapshotBatches().slice(0, 1));
    const manifest = { tool: `${TOOL_NAME} 0.1.0`, files: [{ name: 'images.arrow', format: 'arrow' }] };
    await writeFile(join(folder, 'manifest.json'), JSON.stringify(manifest));
    expect(await resolveSnapshotFile(folder)).toEqual({ path: join(folder, 'images.arrow'), format: 'arrow' });
    // Without a manifest (a folder of data files), Parquet first, as before.
    expect(await resolveSnapshotFile(await writeSnapshot(join(dir, 'plain'), 'parquet', snapshotBatches()))).toEqual({
      path: join(dir, 'plain', 'images.parquet'),
      format: 'parquet',
    });
  });

  it('prefers images.parquet in a folder, falls back to images.arrow, and takes a data file as is', async () => {
    const both = await writeSnapshot(join(dir, 'both'), 'parquet', snapshotBatches());
    await writeSnapshot(both, 'arrow', snapshotBatches());
    const arrowOnly = await writeSnapshot(join(dir, 'arrow'), 'arrow', snapshotBatches());
    expect(await resolveSnapshotFile(both)).toEqual({ path: join(both, 'images.parquet'), format: 'parquet' });
    expect(await resolveSnapshotFile(arrowOnly)).toEqual({ path: join(arrowOnly, 'images.arrow'), format: 'arrow' });
    expect(await resolveSnapshotFile(join(both, 'images.arrow'))).toEqual({
      path: join(both, 'images.arrow'),
      format: 'arrow',
    });
    await writeFile(join(dir, 'renamed.bin'), await readFile(join(both, 'images.parquet')));
    expect(await resolveSnapshotFile(join(dir, 'renamed.bin'))).toEqual({
      path: join(dir, 'renamed.bin'),
      format: 'parquet',
    });
  });

  it('follows the latest symlink of a --snapshot folder, given as the link or as the base folder', async () => {
    const base = join(dir, 'snaps');
    await writeSnapshot(join(base, '20261120T020000Z'), 'parquet', snapshotBatches());
    await symlink('20261120T020000Z', join(base, 'latest'), 'dir');
    const want = { path: join(base, 'latest', 'images.parquet'), format: 'parquet' };
    expect(await resolveSnapshotFile(join(base, 'latest'))).toEqual(want);
    expect(await resolveSnapshotFile(base)).toEqual(want);
  });

  it('follows a latest pointer file (written where symlinks are unavailable)', async () => {
    const base = join(dir, 'snaps');
    await writeSnapshot(join(base, '20261121T020000Z'), 'arrow', snapshotBatches());
    await writeFile(join(base, 'latest'), '20261121T020000Z\n');
    const want = { path: join(base, '20261121T020000Z', 'images.arrow'), format: 'arrow' };
    expect(await resolveSnapshotFile(join(base, 'latest'))).toEqual(want);
    expect(await resolveSnapshotFile(base)).toEqual(want);
  });

  const expectError = async (path: string, code: DiffError['code'], message: string) => {
    const error = await resolveSnapshotFile(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DiffError);
    expect(error).toMatchObject({ code, message });
  };

  it('fails with one line naming the path when there is no snapshot', async () => {
    await expectError(join(dir, 'nope'), 'DIFF_NOT_FOUND', `diff: ${join(dir, 'nope')} does not exist`);
    await mkdir(join(dir, 'empty'));
    await expectError(
      join(dir, 'empty'),
      'DIFF_NOT_SNAPSHOT',
      `diff: ${join(dir, 'empty')} holds no images.parquet or images.arrow`,
    );
    const csv = await writeSnapshot(join(dir, 'csv'), 'csv', snapshotBatches());
    await expectError(
      csv,
      'DIFF_NOT_SNAPSHOT',
      `diff: ${csv} holds only images.csv, and images.parquet or images.arrow is needed ` +
        `(snapshot with --to parquet or --to arrow)`,
    );
    await expectError(
      join(csv, 'images.csv'),
      'DIFF_NOT_SNAPSHOT',
      `diff: ${join(csv, 'images.csv')} is neither a parquet nor an arrow file ` +
        `(snapshot with --to parquet or --to arrow)`,
    );
    await symlink('20200101T000000Z', join(dir, 'empty', 'latest'));
    await expectError(
      join(dir, 'empty'),
      'DIFF_NOT_FOUND',
      `diff: ${join(dir, 'empty', 'latest')} points to a snapshot that does not exist`,
    );
  });

  it('fails with one line naming the file when a data file cannot be decoded', async () => {
    const folder = await writeSnapshot(join(dir, 'cut'), 'parquet', snapshotBatches());
    const file = join(folder, 'images.parquet');
    await truncate(file, 200);
    const error = await readSnapshotRows(folder)
      .then((rows) => drain(rows.batches))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(DiffError);
    expect((error as DiffError).code).toBe('DIFF_UNREADABLE');
    expect((error as Error).message.startsWith(`diff: cannot read ${file}: `)).toBe(true);
    expect((error as Error).message).not.toMatch(/\n/);

    const arrowFolder = await writeSnapshot(join(dir, 'cut-arrow'), 'arrow', snapshotBatches());
    await truncate(join(arrowFolder, 'images.arrow'), 300);
    const arrowError = await readSnapshotRows(arrowFolder)
      .then((rows) => drain(rows.batches))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(arrowError).toMatchObject({ code: 'DIFF_UNREADABLE' });
    expect((arrowError as Error).message.startsWith(`diff: cannot read ${join(arrowFolder, 'images.arrow')}: `)).toBe(
      true,
    );
  });
});
