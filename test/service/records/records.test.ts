/**
 * What the records look like: key order, nulls, real records served exactly, the generator's determinism and value mix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATLAS_KEYS,
  Dataset,
  NIDM_MAP_KEYS,
  type RunningService,
  STATISTIC_MAP_KEYS,
  startService,
} from '../../../src/service/index.js';
import { fixtureLines, fixtureRecords, startFixtureService } from '../../helpers/fixture-service.js';
import { allPages, fetchReply, getPage } from '../http.js';

type Row = Record<string, unknown>;

const GENERATED = 5000;
let generated: RunningService;
let rows: Row[];
let pageIds: number[][];

beforeAll(async () => {
  generated = await startService({ records: GENERATED, seed: 7 });
  const pages = await allPages(`${generated.listUrl}?limit=1000`);
  rows = pages.flatMap((page) => page.results);
  pageIds = (await allPages(generated.listUrl)).map((page) => page.results.map((r) => r.id as number));
});
afterAll(() => generated.close());

const fixture = fixtureRecords();
const fixtureStatKeys = Object.keys(fixture.find((r) => r.id === 14225) as Row);
const fixtureAtlasKeys = Object.keys(fixture.find((r) => r.id === 14228) as Row);
const ofType = (type: string): Row[] => rows.filter((r) => r.image_type === type);

describe('key order', () => {
  it('of statistic maps is the real one (fixture record 14225), extras just before image_type', () => {
    expect([...STATISTIC_MAP_KEYS]).toEqual(fixtureStatKeys);
    const maps = ofType('statistic_map');
    expect(maps.length).toBeGreaterThan(1000);
    for (const record of maps) {
      const keys = Object.keys(record);
      const known = keys.filter((k) => fixtureStatKeys.includes(k));
      expect(known).toEqual(fixtureStatKeys);
      const extras = keys.filter((k) => !fixtureStatKeys.includes(k));
      expect(keys.slice(keys.length - 1 - extras.length, keys.length - 1)).toEqual(extras);
    }
  });

  it('of fixture records with user-defined keys puts them before image_type too', () => {
    const record = fixture.find((r) => r.id === 14112) as Row;
    expect(Object.keys(record).slice(-3)).toEqual(['CIAS', 'type', 'image_type']);
  });

  it('of atlases is the real one (fixture record 14228)', () => {
    expect([...ATLAS_KEYS]).toEqual(fixtureAtlasKeys);
    const atlases = ofType('atlas');
    expect(atlases.length).toBeGreaterThan(0);
    for (const record of atlases) expect(Object.keys(record)).toEqual(fixtureAtlasKeys);
  });

  it(
    'of NIDM maps follows DRF: declared fields after file_size, then the Image fields in ' + 'real order, data and QA',
    () => {
      const nidm = ofType('NIDM results statistic map');
      expect(nidm.length).toBeGreaterThan(0);
      for (const record of nidm) expect(Object.keys(record)).toEqual([...NIDM_MAP_KEYS]);
      const keys: string[] = [...NIDM_MAP_KEYS];
      expect(keys.slice(0, 11)).toEqual([
        'url',
        'id',
        'file',
        'collection',
        'collection_id',
        'file_size',
        'nidm_results',
        'nidm_results_ttl',
        'description',
        'map_type',
        'analysis_level',
      ]);
      const shared = fixtureStatKeys.filter(
        (k) => keys.includes(k) && !['description', 'map_type', 'analysis_level'].includes(k),
      );
      expect(keys.filter((k) => shared.includes(k))).toEqual(shared);
    },
  );
});

describe('nulls', () => {
  it('are present, never omitted: every record of a kind has the same keys', () => {
    const nullKeys = new Set<string>();
    const missing: string[] = [];
    for (const record of rows) {
      const expected =
        record.image_type === 'atlas'
          ? ATLAS_KEYS
          : record.image_type === 'statistic_map'
            ? STATISTIC_MAP_KEYS
            : NIDM_MAP_KEYS;
      for (const key of expected) {
        if (!(key in record)) missing.push(`${String(record.id)}.${key}`);
        else if (record[key] === null) nullKeys.add(key);
      }
    }
    expect(missing).toEqual([]);
    for (const key of [
      'figure',
      'handedness',
      'age',
      'BMI',
      'reduced_representation',
      'analysis_level',
      'number_of_subjects',
      'cognitive_paradigm_cogatlas',
    ]) {
      expect(nullKeys).toContain(key);
    }
  });
});

describe('given records', () => {
  it('are served exactly as recorded, in file order, with URLs on the served origin', async () => {
    const service = await startFixtureService();
    try {
      const reply = await fetchReply(`${service.listUrl}?limit=100`);
      const lines = fixtureLines().map((line) => line.replaceAll('http://neurovault.org', service.url));
      expect(reply.text).toBe(`{"count":59,"next":null,"previous":null,"results":[${lines.join(',')}]}`);
    } finally {
      await service.close();
    }
  });

  it('keep their text byte for byte (0.0 stays 0.0), with only URL fields re-based', async () => {
    const service = await startFixtureService();
    try {
      const reply = await fetchReply(`${service.listUrl}?limit=100`, { headers: { host: 'mirror.test' } });
      expect(reply.text).toContain('"perc_voxels_outside":0.0,');
      expect(reply.text).not.toContain('neurovault.org');
      expect(reply.text).toContain('"url":"http://mirror.test/images/14225/"');
    } finally {
      await service.close();
    }
  });

  it('mix with generated ones: all fixture records in their order, spread through the list', async () => {
    const service = await startFixtureService({ records: 500, seed: 7 });
    try {
      const pages = await allPages(`${service.listUrl}?limit=1000`);
      const served = pages.flatMap((p) => p.results);
      expect(pages[0]?.count).toBe(559);
      const fixtureIds = fixture.map((r) => r.id);
      const positions = served.map((r, i) => [r.id, i] as const).filter(([id]) => fixtureIds.includes(id as number));
      expect(positions.map(([id]) => id)).toEqual(fixtureIds);
      expect(positions[0]![1]).toBeLessThan(20);
      expect(positions.at(-1)![1]).toBeGreaterThan(540);
      expect(new Set(served.map((r) => r.id)).size).toBe(559);
      expect(served.find((r) => r.id === 14228)).toEqual(
        JSON.parse(
          fixtureLines()
            .find((l) => l.includes('"id":14228,'))!
            .replaceAll('http://neurovault.org', service.url),
        ),
      );
    } finally {
      await service.close();
    }
  });

  it('are listed by the dataset as served, for value-by-value comparisons', async () => {
    const service = await startFixtureService({ records: 300, seed: 2 });
    try {
      const served = (await allPages(`${service.listUrl}?limit=1000`)).flatMap((p) => p.results);
      expect([...service.dataset.records()]).toEqual(served);
      expect([...service.servedRecords()]).toEqual(served);
      expect(service.dataset.recordAt(17)).toEqual(served[17]);
    } finally {
      await service.close();
    }
  });

  it('must be objects with a unique integer id', async () => {
    await expect(startService({ data: ['{"id":1}', '{"id":1}'] })).rejects.toThrow(
      'service: data record 2 repeats id 1',
    );
    await expect(startService({ data: ['{"name":"x"}'] })).rejects.toThrow('needs a positive integer "id"');
    await expect(startService({ data: ['not json'] })).rejects.toThrow('service: data record 1 is not valid JSON');
  });
});

describe('generator', () => {
  it('is deterministic: same count and seed give byte-identical responses', async () => {
    const again = await startService({ records: GENERATED, seed: 7 });
    const other = await startService({ records: GENERATED, seed: 8 });
    try {
      const host = { host: 'same.host' };
      for (const query of ['?limit=1000&offset=2000', '?offset=4950', '?limit=3']) {
        const a = await fetchReply(`${generated.listUrl}${query}`, { headers: host });
        const b = await fetchReply(`${again.listUrl}${query}`, { headers: host });
        const c = await fetchReply(`${other.listUrl}${query}`, { headers: host });
        expect(b.body.equals(a.body)).toBe(true);
        expect(c.body.equals(a.body)).toBe(false);
      }
    } finally {
      await Promise.all([again.close(), other.close()]);
    }
  });

  it('serves all three image types', () => {
    expect(ofType('statistic_map').length).toBeGreaterThan(ofType('atlas').length);
    expect(ofType('atlas').length).toBeGreaterThan(0);
    expect(ofType('NIDM results statistic map').length).toBeGreaterThan(0);
    for (const record of ofType('NIDM results statistic map')) {
      expect(record.nidm_results).toMatch(new RegExp(`^${generated.url}/collections/\\d+/[\\w.-]+/$`));
      expect(record.nidm_results_ttl).toMatch(/\.ttl$/);
      expect(record.description).toMatch(/^NIDM Results: .+\.zip > .+\.nii\.gz$/);
    }
  });

  it('adds user-defined keys whose type varies between records', () => {
    const types = new Map<string, Set<string>>();
    for (const record of ofType('statistic_map')) {
      for (const key of Object.keys(record).filter((k) => !fixtureStatKeys.includes(k))) {
        const value = record[key];
        const type = value === null ? 'null' : value === '' ? 'empty' : Number.isInteger(value) ? 'int' : typeof value;
        types.set(key, (types.get(key) ?? new Set()).add(type));
      }
    }
    expect(types.size).toBeGreaterThan(0);
    const all = new Set([...types.values()].flatMap((s) => [...s]));
    for (const type of ['int', 'empty', 'string', 'number', 'boolean', 'null']) expect(all).toContain(type);
    expect([...types.values()].some((s) => s.has('int') && s.has('empty'))).toBe(true);
  });

  it('writes timestamps with both Berlin offsets', () => {
    const offsets = new Set(rows.flatMap((r) => [r.add_date, r.modify_date]).map((t) => (t as string).slice(-6)));
    expect(offsets).toEqual(new Set(['+01:00', '+02:00']));
    for (const record of rows) expect(record.add_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+0[12]:00$/);
  });

  it('writes some timestamps without a fraction (microseconds 0)', () => {
    expect(rows.some((r) => /:\d\d\+0[12]:00$/.test(r.add_date as string))).toBe(true);
    expect(rows.some((r) => /\.\d{6}\+/.test(r.add_date as string))).toBe(true);
  });

  it('leaves modality empty in some (old) records', () => {
    const modalities = new Set(ofType('statistic_map').map((r) => r.modality));
    expect(modalities).toContain('');
    expect(modalities).toContain('fMRI-BOLD');
  });

  it('uses the sentinel Cognitive Atlas pairs', () => {
    const maps = ofType('statistic_map');
    const pairs = (name: string): Set<string> =>
      new Set(
        maps.map((r) => `${String(r[`cognitive_${name}_cogatlas`])}|${String(r[`cognitive_${name}_cogatlas_id`])}`),
      );
    expect(pairs('paradigm')).toContain('None / Other|None');
    expect(pairs('paradigm')).toContain('null|null');
    expect(pairs('contrast')).toContain('None / Other|None');
    expect(pairs('contrast')).toContain('Other|Other');
    for (const pair of [...pairs('paradigm')].filter((p) => p.includes('trm_')))
      expect(pair).toMatch(/\|trm_[0-9a-f]+$/);
  });

  it('mixes map types, analysis levels (null too), templates with their species, and data origins', () => {
    const maps = ofType('statistic_map');
    const mapTypes = new Set(maps.map((r) => r.map_type));
    for (const type of ['T map', 'Z map', 'P map (given null hypothesis)', 'ROI/mask', 'other'])
      expect(mapTypes).toContain(type);
    expect(new Set(maps.map((r) => r.analysis_level))).toEqual(
      new Set([null, 'single-subject', 'group', 'meta-analysis', 'other']),
    );
    expect(new Set(rows.map((r) => r.data_origin))).toEqual(new Set(['volume', 'surface']));
    // A template belongs to a collection, and 5,000 records fill only a few dozen: ask a larger data set.
    const larger = new Dataset({ records: 40_000, seed: 7 });
    const pairOf = (r: Row): string => `${String(r.target_template_image)}|${String(r.subject_species)}`;
    const templates = new Set([...larger.records()].map(pairOf));
    const pairs = [
      'GenericMNI|homo sapiens',
      'MNI152NLin2009cAsym|homo sapiens',
      'Dorr2008|mus musculus',
      'NMT|macaca mulatta',
    ];
    for (const pair of pairs) expect(templates).toContain(pair);
  });

  it('has file_size 0 sometimes, NaN floats as null, figure "" and null', () => {
    expect(rows.some((r) => r.file_size === 0)).toBe(true);
    expect(rows.some((r) => r.image_type !== 'atlas' && r.perc_bad_voxels === null)).toBe(true);
    expect(rows.some((r) => r.figure === '')).toBe(true);
    expect(rows.some((r) => r.figure === null)).toBe(true);
  });

  it('writes descriptions with unicode, quotes, backslashes and newlines', () => {
    const descriptions = rows.map((r) => r.description as string);
    expect(descriptions).toContain('');
    expect(descriptions.some((d) => /[^\x00-\x7f]/.test(d))).toBe(true);
    expect(descriptions.some((d) => d.includes('"'))).toBe(true);
    expect(descriptions.some((d) => d.includes('\n'))).toBe(true);
    expect(descriptions.some((d) => d.includes('\\'))).toBe(true);
  });

  it('uses sparse ids, some past 900,000', () => {
    const ids = rows.map((r) => r.id as number);
    expect(new Set(ids).size).toBe(GENERATED);
    expect(Math.max(...ids)).toBeGreaterThan(900_000);
    expect(Math.max(...ids) - Math.min(...ids)).toBeGreaterThan(GENERATED);
  });

  it('does not keep ids strictly increasing within pages', () => {
    const unordered = pageIds.filter((ids) => ids.some((id, i) => i > 0 && id < ids[i - 1]!));
    expect(unordered.length).toBeGreaterThan(pageIds.length / 2);
  });

  it('builds URLs in the advertised forms', () => {
    const record = ofType('statistic_map')[0]!;
    const id = record.id as number;
    const cid = record.collection_id as number;
    expect(record.url).toBe(`${generated.url}/images/${id}/`);
    expect(record.collection).toBe(`${generated.url}/collections/${cid}/`);
    expect(record.file).toMatch(new RegExp(`^${generated.url}/media/images/${cid}/.+\\.nii\\.gz$`));
    for (const r of rows.filter((x) => x.surface_left_file !== null)) {
      expect(r.surface_left_file).toBe(
        `${generated.url}/media/images/${String(r.collection_id)}/${String(r.id)}.L.func.gii`,
      );
      expect(r.thumbnail).not.toBeNull();
    }
  });

  it('answers a page as dataset.recordAt predicts', async () => {
    const page = await getPage(`${generated.listUrl}?limit=10&offset=4321`);
    expect(page.results).toEqual(Array.from({ length: 10 }, (_, i) => generated.dataset.recordAt(4321 + i)));
  });
});
