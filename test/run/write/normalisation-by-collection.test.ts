import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NormalisationByCollection } from '../../../src/run/write/normalisation-by-collection.js';
import { IMAGES } from '../../../src/schema/columns.js';
import type { NormalisationCounts } from '../../../src/schema/normalisation-counts.js';
import { removeDir, tempDir } from '../../helpers/readers.js';

const counts = (sentinel: Record<string, number>, empty: Record<string, number>, extra = 0): NormalisationCounts => ({
  sentinelToNull: sentinel,
  emptyToNull: empty,
  recordsWithExtra: extra,
});

/** Rows of three collections and of none, as (collection, counts). */
const rows: [number | null, NormalisationCounts][] = [
  [12, counts({ cognitive_contrast_cogatlas: 1, cognitive_paradigm_cogatlas: 1 }, {})],
  [null, counts({}, { name: 1 }, 1)],
  [3, counts({}, { description: 1, name: 1 })],
  [12, counts({ cognitive_paradigm_cogatlas: 1 }, { description: 1 }, 1)],
  [3, counts({}, {}, 1)],
];

function tally(order: readonly [number | null, NormalisationCounts][]): NormalisationByCollection {
  const t = new NormalisationByCollection();
  for (const [key, c] of order) t.add(key, c);
  return t;
}

describe('normalisation counts per collection', () => {
  let dir: string;
  beforeEach(async () => (dir = await tempDir()));
  afterEach(async () => removeDir(dir));

  it('gives one file whatever order the rows were added in: ids ascending, no collection last, table order', () => {
    const text = tally(rows).fileText(IMAGES);
    expect(tally([...rows].reverse()).fileText(IMAGES)).toBe(text);
    type Entry = { collection_id: number | null; sentinel_to_null: object };
    const { collections } = JSON.parse(text) as { collections: Entry[] };
    expect(collections.map((c) => c.collection_id)).toEqual([3, 12, null]);
    const twelve = collections[1]!;
    const position = (name: string) => IMAGES.names.indexOf(name);
    const names = Object.keys(twelve.sentinel_to_null);
    expect(names).toEqual([...names].sort((a, b) => position(a) - position(b)));
    expect(twelve).toMatchObject({ sentinel_to_null: { cognitive_paradigm_cogatlas: 2 }, records_with_extra: 1 });
  });

  it('totals the collections, and reads back what it wrote', async () => {
    const written = tally(rows);
    expect(written.totals(IMAGES)).toEqual(
      counts({ cognitive_contrast_cogatlas: 1, cognitive_paradigm_cogatlas: 2 }, { name: 2, description: 2 }, 3),
    );
    const path = join(dir, 'normalisation.json');
    const result = await written.write(path, IMAGES);
    expect(result).toMatchObject({ format: 'index', rows: 3, bytes: (await readFile(path)).length });
    const read = await NormalisationByCollection.read(path);
    expect(read.fileText(IMAGES)).toBe(written.fileText(IMAGES));
    expect(read.get(null)).toEqual(counts({}, { name: 1 }, 1));
  });

  it('adds a row given as the JSON text of its counts as it adds the counts, however often the text repeats', () => {
    const asText = new NormalisationByCollection();
    for (const [key, c] of [...rows, ...rows, ...rows]) asText.addText(key, JSON.stringify(c));
    expect(asText.fileText(IMAGES)).toBe(tally([...rows, ...rows, ...rows]).fileText(IMAGES));
    expect(asText.get(12)).toEqual(
      counts({ cognitive_contrast_cogatlas: 3, cognitive_paradigm_cogatlas: 6 }, { description: 3 }, 3),
    );
    asText.addText(12, JSON.stringify(rows[0]![1]));
    expect(asText.totals(IMAGES).sentinelToNull).toEqual({
      cognitive_contrast_cogatlas: 4,
      cognitive_paradigm_cogatlas: 7,
    });
  });

  it('refuses a file of another version or naming a collection by other than a whole number', async () => {
    const path = join(dir, 'normalisation.json');
    await writeFile(path, JSON.stringify({ version: 2, collections: [] }));
    await expect(NormalisationByCollection.read(path)).rejects.toThrow(/is not a normalisation file of version 1/);
    await writeFile(path, JSON.stringify({ version: 1, collections: [{ collection_id: '12' }] }));
    await expect(NormalisationByCollection.read(path)).rejects.toThrow(/names a collection 12/);
  });
});
