/**
 * `img-etl files --layout nilearn` writes the folder nilearn's own download writes, and nilearn reads it offline. The
 * bundled service serves the 59 real records (an atlas, user-defined keys, unicode) and generated ones (lost files
 * among them); nilearn's `fetch_neurovault_ids` downloads a selection from it (its URL constants pointed there, the
 * test venv's nilearn) and the real CLI writes the same selection from a snapshot: the same files, each map byte for
 * byte, each metadata file the same JSON (the path keys aside: nilearn writes them relative to its working folder
 * after the first image of a collection, and rewrites them on reading). Then nilearn reads img-etl's folder in offline
 * mode with every request made to fail (nilearn-neurovault.py), and opens every map.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../../src/service/index.js';
import { fixtureLines } from '../../helpers/fixture-service.js';
import { filesUnder, snapshotOf, startSnapshottedService, type Rec } from '../../helpers/files-run.js';
import { openDuckDB, query, removeDir, sqlString } from '../../helpers/readers.js';
import { runCliHere } from '../../helpers/run-cli.js';
import { missingTools, VENV_PYTHON } from '../../helpers/test-tools.js';

const NILEARN = fileURLToPath(new URL('./nilearn-neurovault.py', import.meta.url));
const missing = missingTools(['venv']);
const SMALL = 300_000; // bytes: the selection's maps stay small, so nilearn's one-at-a-time download stays quick

let service: RunningService;
let root: string;
let snap: string;
let records: Rec[];

beforeAll(async () => {
  ({ service, root, snap, records } = await startSnapshottedService({ data: fixtureLines(), records: 400, seed: 5 }));
});

afterAll(async () => {
  await service.close();
  await removeDir(root);
});

/**
 * Runs nilearn-neurovault.py with the test venv's Python (not blocking: the service it asks runs in this process); its
 * JSON output.
 */
async function nilearn(args: string[]): Promise<Record<string, number[]>> {
  const { stdout } = await promisify(execFile)(VENV_PYTHON, [NILEARN, ...args], { encoding: 'utf8' });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number[]>;
}

const ids = (recs: readonly Rec[]): number[] => recs.map((r) => r['id'] as number).sort((a, b) => a - b);
const inCollections = (collections: readonly number[]) =>
  records.filter((r) => collections.includes(r['collection_id'] as number));
/** The collections of: a record with user-defined keys (CIAS), the atlas, a lost file. */
function chosenCollections(): number[] {
  const of = (test: (r: Rec) => boolean) => records.find(test)!['collection_id'] as number;
  return [
    ...new Set([of((r) => 'CIAS' in r), of((r) => r['image_type'] === 'atlas'), of((r) => r['file_size'] === 0)]),
  ];
}

/** A metadata file parsed, its path keys left out. */
async function record(path: string): Promise<Rec> {
  const { relative_path: _a, resampled_relative_path: _b, ...rest } = JSON.parse(await readFile(path, 'utf8')) as Rec;
  return rest;
}

/** A metadata file's text with the path keys' values left out. */
async function textOf(path: string): Promise<string> {
  return (await readFile(path, 'utf8')).replace(/("(?:resampled_)?relative_path": )"[^"]*"/g, '$1…');
}

/** The files of a nilearn data_dir under neurovault/ (nilearn's own README.md beside it aside). */
async function tree(dataDir: string): Promise<string[]> {
  return [...(await filesUnder(join(dataDir, 'neurovault')))].map(([name]) => name);
}

describe.skipIf(missing !== undefined)(`nilearn's folder (${missing ?? 'nilearn in the test venv'})`, () => {
  it("holds what nilearn's own download writes, and nilearn reads it offline without a request", async () => {
    const collections = chosenCollections();
    const selected = inCollections(collections).filter((r) => (r['file_size'] as number) <= SMALL);
    const out = join(root, 'img-etl');
    const where = ['--where', `collection_id in (${collections.join(', ')})`, '--where', `file_size <= ${SMALL}`];
    const run = await runCliHere(['files', snap, '--layout', 'nilearn', '--out', out, ...where]);
    expect(run.code, run.stderr).toBe(0);

    const theirs = join(root, 'nilearn');
    const downloaded = await nilearn(['download', service.url, theirs, JSON.stringify(ids(selected))]);
    const placed = selected.filter((r) => r['file_size'] !== 0);
    expect(downloaded['ids']).toEqual(ids(placed));
    const files = await tree(out);
    expect(files).toEqual(await tree(theirs));
    expect(files.filter((f) => f.endsWith('.nii.gz')).length).toBe(placed.length);
    expect(files.filter((f) => f.endsWith('collection_metadata.json')).length).toBe(collections.length);
    for (const file of files) {
      const [ours, nilearns] = [join(out, 'neurovault', file), join(theirs, 'neurovault', file)];
      if (file.endsWith('.nii.gz')) expect((await readFile(ours)).equals(await readFile(nilearns)), file).toBe(true);
      else {
        expect(await record(ours), file).toEqual(await record(nilearns));
        expect(await textOf(ours), file).toBe(await textOf(nilearns)); // json.dumps's text, byte for byte
      }
    }

    const listed = (c: number) => records.filter((r) => r['collection_id'] === c && r['file_size'] !== 0).length;
    const partial = collections.filter((c) => placed.filter((r) => r['collection_id'] === c).length < listed(c));
    expect(partial.length).toBeGreaterThan(0);
    expect(run.stderr).toContain(`img-etl: files: ${partial.length} collection`);
    expect(run.stderr).toContain('written in part, which nilearn takes as whole');
    const db = await openDuckDB();
    const kv = await query(
      db,
      `SELECT decode(value) AS v FROM parquet_kv_metadata(${sqlString(join(out, 'files.parquet'))})
       WHERE decode(key) = 'img-etl.partial_collections'`,
    );
    expect(JSON.parse(kv[0]!['v'] as string)).toEqual(partial.sort((a, b) => a - b));

    const offline = await nilearn(['offline', out, JSON.stringify(ids(selected))]);
    const collection = async (c: unknown) => (await fetch(`${service.url}/api/collections/${String(c)}/`)).json();
    const counted = new Map<unknown, unknown>();
    for (const c of collections) counted.set(c, ((await collection(c)) as Rec)['number_of_images']);
    const group = placed.filter(
      (r) =>
        r['not_mni'] === false &&
        r['is_thresholded'] === false &&
        !['ROI/mask', 'anatomical', 'parcellation'].includes(r['map_type'] as string) &&
        r['image_type'] !== 'atlas' &&
        r['analysis_level'] === 'group' &&
        counted.get(r['collection_id']) != null,
    );
    expect(group.length).toBeGreaterThan(0);
    expect(offline).toEqual({ by_ids: ids(placed), every: ids(placed), group: ids(group), loaded: placed.length });

    const again = await runCliHere(['files', snap, '--layout', 'nilearn', '--out', out, ...where, '--quiet']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`  fetched   0 files, 0 B in`);
  }, 120_000);

  it('--whole-collections fetches every image of each collection touched, and none is written in part', async () => {
    const sizes = new Map<number, number[]>();
    for (const r of records)
      sizes.set(r['collection_id'] as number, [
        ...(sizes.get(r['collection_id'] as number) ?? []),
        r['file_size'] as number,
      ]);
    const [smallest] = [...sizes]
      .filter(([, s]) => s.length >= 3)
      .sort((a, b) => Math.max(...a[1]) - Math.max(...b[1]))[0]!;
    const whole = inCollections([smallest]);
    const out = join(root, 'whole');
    const one = ['--where', `id = ${String(whole[0]!['id'])}`];
    const run = await runCliHere(['files', snap, '--layout', 'nilearn', '--whole-collections', '--out', out, ...one]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('written in part');
    const images = (await tree(out)).filter((f) => f.endsWith('.nii.gz'));
    expect(images).toEqual(
      ids(whole.filter((r) => r['file_size'] !== 0))
        .map((id) => `collection_${smallest}/image_${id}.nii.gz`)
        .sort(),
    );
  });

  it('fetches the record of a collection the snapshot lacks, or says in one line why it cannot', async () => {
    const bare = await startService({ data: fixtureLines(), records: 400, seed: 5, collectionEndpoints: false });
    try {
      const bareSnap = await snapshotOf(bare, join(root, 'bare-snap'));
      const [c] = chosenCollections();
      const where = ['--where', `collection_id = ${c}`, '--where', `file_size <= ${SMALL}`];
      const imagesOnly = join(root, 'images-only');
      await mkdir(imagesOnly);
      await copyFile(join(snap, 'images.parquet'), join(imagesOnly, 'images.parquet'));
      const fetched = join(root, 'fetched');
      const withRecords = ['--base-url', service.url, '--out', fetched, ...where, '--quiet'];
      const run1 = await runCliHere([
        'files',
        join(imagesOnly, 'images.parquet'),
        '--layout',
        'nilearn',
        ...withRecords,
      ]);
      expect(run1.code, run1.stderr).toBe(0);
      const file = join('neurovault', `collection_${c}`, 'collection_metadata.json');
      expect(await readFile(join(fetched, file), 'utf8')).toBe(await readFile(join(root, 'img-etl', file), 'utf8'));

      const without = join(root, 'without');
      const run = await runCliHere(['files', bareSnap, '--layout', 'nilearn', '--out', without, ...where]);
      expect(run.code).toBe(0);
      const url = `${bare.url}/api/collections/${c}/`;
      expect(run.stderr).toMatch(
        new RegExp(`^img-etl: files: collection ${c} is not in the snapshot, and GET ${url} returned 404: `, 'm'),
      );
      expect(run.stderr).toContain(
        `nilearn will not see its images until neurovault/collection_${c}/collection_metadata.json`,
      );
      expect(run.stderr.split('\n').filter((line) => line.includes('is not in the snapshot')).length).toBe(1);
    } finally {
      await bare.close();
    }
  });
});
