/**
 * Records edited in place (`Dataset.edit`): the record's `modify_date` moves to the collections' clock, its name gains
 * a suffix, its collection's `modify_date` moves, and every view serves the edited record: the list, the record's own
 * `/api/images/<id>/` and its collection's image list, over real HTTP. Generated and given (real) records alike.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { formatBerlinTimestamp } from '../../../src/text/berlin-time.js';
import { Dataset } from '../../../src/service/dataset/dataset.js';
import { type RunningService, startService } from '../../../src/service/index.js';
import { Random } from '../../../src/service/basics/random.js';
import { editRecordJson } from '../../../src/service/changes/record-edits.js';
import { fixtureLines } from '../../helpers/fixture-service.js';
import { allPages, getPage } from '../http.js';

const services: RunningService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

type Row = Record<string, unknown>;

describe('Dataset.edit', () => {
  it('moves modify_date to the clock, suffixes the name, keeps every other field, and logs an edit', () => {
    const dataset = new Dataset({ records: 40, seed: 7, data: fixtureLines() });
    const before = new Map(dataset.ids().map((id) => [id, JSON.parse(dataset.recordJson(id)) as Row]));
    const edited = dataset.edit(12, new Random(11));
    expect(edited).toHaveLength(12);
    expect(edited.some((id) => dataset.isGiven(id)) && edited.some((id) => !dataset.isGiven(id))).toBe(true);
    expect(dataset.ids()).toEqual([...before.keys()]);
    expect(dataset.mutations().map((m) => m.kind)).toEqual(Array(12).fill('edit'));
    for (const id of edited) {
      const was = before.get(id)!;
      const now = JSON.parse(dataset.recordJson(id)) as Row;
      expect(Object.keys(now)).toEqual(Object.keys(was));
      expect(now['modify_date']).not.toBe(was['modify_date']);
      expect(String(now['name'])).toMatch(/ \(edited \d+\)$/);
      expect(String(now['name']).startsWith(String(was['name']))).toBe(true);
      expect({ ...now, name: 0, modify_date: 0 }).toEqual({ ...was, name: 0, modify_date: 0 });
    }
    expect(new Dataset({ records: 200, seed: 7 }).edit(6, new Random(11))).toEqual(
      new Dataset({ records: 200, seed: 7 }).edit(6, new Random(11)),
    );
  });

  it('serves the edited record in the list, its own view and its collection, and dates the collection', async () => {
    const service = await startService({ records: 300, seed: 5 });
    services.push(service);
    const [id] = service.dataset.edit(1, new Random(2)) as [number];
    const cid = service.dataset.collectionIdOf(id)!;
    const expected = JSON.parse(service.dataset.recordJson(id)) as Row;
    const stamp = expected['modify_date'] as string;
    expect(stamp >= '2026-03-02').toBe(true);
    const listed = (await allPages(`${service.listUrl}?limit=100`)).flatMap((p) => p.results);
    expect(listed.find((r) => r['id'] === id)).toEqual(expected);
    expect(await getPage(`${service.url}/api/images/${id}/`)).toEqual(expected);
    const members = (await allPages(`${service.url}/api/collections/${cid}/images/?limit=100`)).flatMap(
      (p) => p.results,
    );
    expect(members.find((r) => r['id'] === id)).toEqual(expected);
    const collection = (await getPage(`${service.url}/api/collections/${cid}/`)) as unknown as Row;
    expect(collection['modify_date']).toBe(stamp);
  });
});

describe('editRecordJson', () => {
  it('changes only the top-level name and modify_date, whatever nests or quotes around them', () => {
    const json =
      '{"data":{"name":"inner","modify_date":"x"},"name":"a \\"q\\" b","n":[1,{"name":2}],"modify_date":null}';
    const at = Date.UTC(2026, 2, 2) * 1000;
    const edited = JSON.parse(editRecordJson(json, { modified: at, suffix: ' (edited 1)' })) as Row;
    expect(edited).toEqual({
      data: { name: 'inner', modify_date: 'x' },
      name: 'a "q" b (edited 1)',
      n: [1, { name: 2 }],
      modify_date: formatBerlinTimestamp(at),
    });
  });

  it('keeps the spacing of a given record around the values it changes, and turns a null name into the suffix', () => {
    const json = '{ "id" : 1 , "name" : null , "modify_date" : "2019-01-01T00:00:00+01:00" }';
    const at = Date.UTC(2026, 2, 2) * 1000;
    const stamp = JSON.stringify(formatBerlinTimestamp(at));
    expect(editRecordJson(json, { modified: at, suffix: ' (edited 7)' })).toBe(
      `{ "id" : 1 , "name" : "(edited 7)" , "modify_date" : ${stamp} }`,
    );
  });
});
