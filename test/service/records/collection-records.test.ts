/**
 * The records of /api/collections/ over real HTTP, held to the facts copied into
 * test/fixtures/neurovault-collection-fields.json: the 107 keys in order, their JSON types, nullability and
 * choices; number_of_images as NeuroVault counts it; the real fixture records' collections; what generated
 * collections look like.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../../src/service/index.js';
import { fixtureRecords, startFixtureService } from '../../helpers/fixture-service.js';
import { allPages, fetchReply, getPage } from '../http.js';

interface Field {
  key: string;
  type: 'integer' | 'string' | 'number' | 'boolean' | 'datetime' | 'integer[]';
  nullable: boolean;
  choices?: string[];
}

const FIELDS_FILE = new URL('../../fixtures/neurovault-collection-fields.json', import.meta.url);
const FIELDS = (JSON.parse(readFileSync(FIELDS_FILE, 'utf8')) as { fields: Field[] }).fields;
const BERLIN = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+0[12]:00$/;

type Row = Record<string, unknown>;
let service: RunningService;
let pageTexts: string[];
let collections: Row[];
let images: Row[];

beforeAll(async () => {
  service = await startFixtureService({ records: 20_000, seed: 3 });
  pageTexts = [];
  for (let url: string | null = `${service.url}/api/collections/?limit=1000`; url !== null;) {
    const reply = await fetchReply(url);
    pageTexts.push(reply.text);
    url = (JSON.parse(reply.text) as { next: string | null }).next;
  }
  collections = pageTexts.flatMap((text) => (JSON.parse(text) as { results: Row[] }).results);
  images = (await allPages(`${service.listUrl}?limit=1000`)).flatMap((page) => page.results);
});
afterAll(() => service.close());

const listedIn = new Map<number, Promise<{ count: number; results: Row[] }>>();

/** The images `/api/collections/<id>/images/` of the shared service lists, all pages (fetched once). */
function imagesOf(cid: number): Promise<{ count: number; results: Row[] }> {
  let listed = listedIn.get(cid);
  if (listed === undefined) {
    listed = allPages(`${service.url}/api/collections/${cid}/images/?limit=1000`).then((pages) => ({
      count: pages[0]!.count,
      results: pages.flatMap((page) => page.results),
    }));
    listedIn.set(cid, listed);
  }
  return listed;
}

describe('keys and types', () => {
  it('the facts list 107 keys', () => {
    expect(FIELDS).toHaveLength(107);
  });

  it('every record has the 107 keys in the real order', () => {
    expect(collections.length).toBeGreaterThan(300);
    const keys = FIELDS.map((f) => f.key);
    for (const record of collections) expect(Object.keys(record)).toEqual(keys);
  });

  it('every value has its JSON type, is null only where the field is nullable, and a choice is a stored value', () => {
    const seen = new Map<string, Set<string>>();
    for (const record of collections) {
      for (const field of FIELDS) {
        const value = record[field.key];
        const kinds = seen.get(field.key) ?? new Set<string>();
        seen.set(field.key, kinds.add(value === null ? 'null' : 'value'));
        if (value === null) {
          expect(field.nullable, `${field.key} of collection ${String(record.id)}`).toBe(true);
          continue;
        }
        const ok = {
          integer: () => Number.isSafeInteger(value),
          number: () => typeof value === 'number',
          string: () => typeof value === 'string',
          boolean: () => typeof value === 'boolean',
          datetime: () => typeof value === 'string' && BERLIN.test(value),
          'integer[]': () => Array.isArray(value) && value.every((v) => Number.isSafeInteger(v)),
        }[field.type]();
        expect(ok, `${field.key} = ${JSON.stringify(value)} of collection ${String(record.id)}`).toBe(true);
        // The API stores "" for a nullable choice field as given.
        if (field.choices && value !== '') expect(field.choices).toContain(value);
      }
    }
    // Every field takes a value somewhere: the generator fills metadata, if rarely.
    for (const field of FIELDS) expect([...seen.get(field.key)!], field.key).toContain('value');
  });

  it('writes floats as Python does: a whole number keeps its .0', () => {
    const floats = FIELDS.filter((f) => f.type === 'number').map((f) => f.key);
    let written = 0;
    for (const text of pageTexts) {
      for (const key of floats) {
        for (const match of text.matchAll(new RegExp(`"${key}":([^,}]+)`, 'g'))) {
          if (match[1] === 'null') continue;
          expect(match[1], key).toMatch(/^-?\d+\.\d+(e[+-]\d+)?$/);
          written++;
        }
      }
    }
    expect(written).toBeGreaterThan(100);
    expect(pageTexts.join('')).toMatch(/"field_strength":(3|7)\.0[,}]/);
  });

  it('urls name the collection; private is false on the list; names are unique', () => {
    for (const record of collections) {
      expect(record.url).toBe(`${service.url}/collections/${String(record.id)}/`);
      expect(record.download_url).toBe(`${String(record.url)}download`);
      expect(record.private).toBe(false);
    }
    expect(new Set(collections.map((c) => c.name)).size).toBe(collections.length);
    const dois = collections.map((c) => c.DOI).filter((d) => d !== null);
    expect(new Set(dois).size).toBe(dois.length);
  });
});

describe('number_of_images', () => {
  it('counts the images /images/ lists plus the NIDM Results packages, so it can exceed them', async () => {
    let exceeding = 0;
    for (const record of collections) {
      const listed = await imagesOf(record.id as number);
      const packages = (record.number_of_images as number) - listed.count;
      const hasNidmMaps = listed.results.some((r) => r.image_type === 'NIDM results statistic map');
      expect([0, 1], `collection ${String(record.id)}`).toContain(packages);
      if (hasNidmMaps) expect(packages, `collection ${String(record.id)} has NIDM maps`).toBe(1);
      exceeding += packages;
    }
    expect(exceeding).toBeGreaterThan(0);
  });

  it("counts every listed image exactly once: the collections' /images/ together are /api/images/", async () => {
    const fromCollections = new Map<number, Row>();
    for (const record of collections) {
      for (const image of (await imagesOf(record.id as number)).results) {
        expect(fromCollections.has(image.id as number)).toBe(false);
        expect(image.collection_id).toBe(record.id);
        fromCollections.set(image.id as number, image);
      }
    }
    expect(fromCollections.size).toBe(images.length);
    for (const image of images) expect(fromCollections.get(image.id as number)).toEqual(image);
  });
});

describe('the real records', () => {
  const fixture = fixtureRecords();
  const byCollection = new Map<number, Row[]>();
  for (const record of fixture) {
    const cid = record.collection_id as number;
    byCollection.set(cid, [...(byCollection.get(cid) ?? []), record]);
  }

  it('belong to six collections whose /images/ are exactly them, by id', async () => {
    expect([...byCollection.keys()].sort((a, b) => a - b)).toEqual([555, 1039, 1056, 1058, 1195, 1197]);
    for (const [cid, records] of byCollection) {
      const listed = await imagesOf(cid);
      expect(listed.results.map((r) => r.id)).toEqual(records.map((r) => r.id as number).sort((a, b) => a - b));
      const record = collections.find((c) => c.id === cid)!;
      expect(record.number_of_images).toBe(records.length);
    }
  });

  it('have plausible collection records: dated before their first image, modified at their last change', async () => {
    for (const [cid, records] of byCollection) {
      const record = (await getPage(`${service.url}/api/collections/${cid}/`)) as unknown as Row;
      const adds = records.map((r) => Date.parse(r.add_date as string));
      const modifies = records.map((r) => Date.parse(r.modify_date as string));
      expect(Date.parse(record.add_date as string)).toBeLessThanOrEqual(Math.min(...adds));
      expect(Date.parse(record.modify_date as string)).toBe(Math.max(...modifies));
      expect(typeof record.owner_name).toBe('string');
      expect((record.name as string).length).toBeGreaterThan(10);
    }
    const vmhc = (await getPage(`${service.url}/api/collections/1039/`)) as unknown as Row;
    expect([vmhc.scanner_make, vmhc.field_strength]).toEqual(['Siemens', 3]);
  });
});

describe('generated collections', () => {
  it('are dated before their images and modified no earlier than any of them', async () => {
    for (const record of collections.filter((c) => (c.number_of_images as number) > 0).slice(0, 60)) {
      const listed = await imagesOf(record.id as number);
      const added = Date.parse(record.add_date as string);
      const modified = Date.parse(record.modify_date as string);
      for (const image of listed.results) {
        expect(added).toBeLessThanOrEqual(Date.parse(image.add_date as string));
        expect(modified).toBeGreaterThanOrEqual(Date.parse(image.modify_date as string));
      }
      if (record.doi_add_date !== null) expect(record.DOI).not.toBeNull();
    }
  });

  it('keep an owner name per owner, and contributors as a string of usernames', () => {
    const names = new Map<number, string>();
    for (const record of collections) {
      const known = names.get(record.owner as number);
      if (known !== undefined) expect(record.owner_name).toBe(known);
      names.set(record.owner as number, record.owner_name as string);
      expect(record.contributors).toMatch(/^(|[\p{L}\p{N}.@+_-]+(, [\p{L}\p{N}.@+_-]+)*)$/u);
    }
    expect(collections.some((c) => c.contributors !== '')).toBe(true);
  });

  it('look like the real ones: most small, a few with thousands of maps, some empty, some with a paper', async () => {
    const big = await startService({ records: 200_000, seed: 1 });
    try {
      const all = (await allPages(`${big.url}/api/collections/?limit=1000`)).flatMap((page) => page.results);
      const sizes = all.map((c) => c.number_of_images as number).sort((a, b) => a - b);
      expect(sizes[Math.floor(sizes.length / 2)]).toBeLessThan(20);
      expect(sizes.filter((n) => n >= 1000).length).toBeGreaterThanOrEqual(3);
      expect(sizes.filter((n) => n >= 1000).length).toBeLessThan(all.length / 100);
      expect(sizes.filter((n) => n === 0).length).toBeGreaterThan(0);
      const withDoi = all.filter((c) => c.DOI !== null).length / all.length;
      expect(withDoi).toBeGreaterThan(0.2);
      expect(withDoi).toBeLessThan(0.5);
      expect(all.some((c) => (c.name as string).endsWith("'s temporary collection"))).toBe(true);
      // Collections are about as many as on neurovault.org for as many maps (13,396 for 559,182 in 2024).
      const mapsPerCollection = big.dataset.size / all.length;
      expect(mapsPerCollection).toBeGreaterThan(25);
      expect(mapsPerCollection).toBeLessThan(60);
    } finally {
      await big.close();
    }
  });
});
