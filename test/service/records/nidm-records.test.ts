/**
 * The maps of an NIDM Results upload, as NeuroVault names them: the package's name is its zip's base name with
 * `.nidm` (or `_<n>.nidm` for a repeat) (forms.py L1279-1289), the only form `view_nidm_results` routes
 * (urls.py L257-260), so `nidm_results` is `/collections/<cid>/<name>/`; the maps and the ttl are stored under
 * `images/<cid>/<name>/` (models.py L929-931), and the description names `<name>.zip`. Real loopback HTTP.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningService, startService } from '../../../src/service/index.js';
import { fetchReply, getPage } from '../http.js';

let service: RunningService;
let nidm: Record<string, unknown>[];

beforeAll(async () => {
  service = await startService({ records: 3000, seed: 1 });
  const page = await getPage(`${service.listUrl}?limit=1000`);
  nidm = page.results.filter((record) => record['image_type'] === 'NIDM results statistic map');
});
afterAll(() => service.close());

it('name their package <base>.nidm and link it, their file and their ttl by that name', () => {
  expect(nidm.length).toBeGreaterThan(0);
  for (const record of nidm) {
    const cid = record['collection_id'] as number;
    const match = new RegExp(`^${service.url}/collections/${cid}/([^/]+\\.nidm)/$`).exec(
      String(record['nidm_results']),
    );
    expect([record['id'], match]).toEqual([record['id'], expect.anything()]);
    const name = match![1]!;
    expect(name).toMatch(/^[A-Za-z0-9.+\-_[\]()]+\.nidm$/);
    const folder = `${service.url}/media/images/${cid}/${name}/`;
    expect(String(record['file']).startsWith(folder)).toBe(true);
    expect(String(record['nidm_results_ttl'])).toMatch(new RegExp(`^${folder}[^/]+\\.ttl$`));
    const fileName = String(record['file']).slice(folder.length);
    expect(record['description']).toBe(`NIDM Results: ${name}.zip > ${fileName}`);
  }
});

it('serve their files at those links', async () => {
  const record = nidm.find((r) => r['file_size'] !== 0)!;
  expect((await fetchReply(String(record['file']), { method: 'HEAD' })).status).toBe(200);
});
