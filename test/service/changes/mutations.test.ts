/** Records inserted and deleted while a client pages, unstable row order, and orphan rows. */
import { describe, expect, it } from 'vitest';
import { collectionRange, startService } from '../../../src/service/index.js';
import { allPages, getPage } from '../http.js';

const N = 300;

describe('inserts', () => {
  it('add records with fresh ids larger than any existing, at random rows, and are logged', async () => {
    const service = await startService({ records: N, seed: 4, faults: { insertRate: 1, insertCount: 3 } });
    try {
      const initial = service.dataset.ids();
      const page = await getPage(`${service.listUrl}?limit=1`);
      expect(page.count).toBe(N + 3);
      const inserted = service.dataset.insertedIds();
      expect(inserted).toHaveLength(3);
      for (const id of inserted) expect(id).toBeGreaterThan(Math.max(...initial));
      expect(new Set(service.dataset.ids())).toEqual(new Set([...initial, ...inserted]));
      expect(service.dataset.initialIds()).toEqual(initial);
      expect(service.dataset.stableIds()).toEqual(initial);
      expect(service.stats.mutations.inserted).toBe(3);
      const positions = service.dataset.mutations().map((m) => m.position);
      expect(positions.some((p) => p < N)).toBe(true);
    } finally {
      await service.close();
    }
  });

  it('never go into a collection made private by hideCollection, though the fresh ids fall in it', async () => {
    const service = await startService({ records: N, seed: 4, faults: { insertRate: 1, insertCount: 5 } });
    try {
      const { dataset } = service;
      const cid = dataset.collectionIdOf(dataset.largestId)!;
      expect(collectionRange(4, cid)!.hi).toBeGreaterThan(dataset.largestId + 5);
      const hidden = dataset.hideCollection(cid);
      const page = await getPage(`${service.listUrl}?limit=1000`);
      const inserted = dataset.insertedIds();
      expect(inserted).toHaveLength(5);
      for (const id of inserted) expect(dataset.collections.get(dataset.collectionIdOf(id)!)?.private).toBe(false);
      expect(page.count).toBe(N - hidden.length + 5);
      const served = page.results.map((r) => r.id as number);
      expect(served).toEqual(expect.arrayContaining(inserted));
      expect(served.filter((id) => dataset.collectionIdOf(id) === cid)).toEqual([]);
    } finally {
      await service.close();
    }
  });
});

describe('deletes', () => {
  it('remove records at random rows; stableIds are the initial ids never deleted', async () => {
    const service = await startService({ records: N, seed: 4, faults: { deleteRate: 1, deleteCount: 2 } });
    try {
      const initial = service.dataset.ids();
      const page = await getPage(`${service.listUrl}?limit=1000`);
      expect(page.count).toBe(N - 2);
      const deleted = service.dataset.deletedIds();
      expect(deleted).toHaveLength(2);
      const served = page.results.map((r) => r.id as number);
      for (const id of deleted) expect(served).not.toContain(id);
      expect(service.dataset.stableIds()).toEqual(initial.filter((id) => !deleted.includes(id)));
      expect(served).toEqual(service.dataset.stableIds());
    } finally {
      await service.close();
    }
  });

  it('while a client pages by offset, the count changes and records are skipped', async () => {
    const service = await startService({
      records: N,
      seed: 4,
      faults: { deleteRate: 1, deleteCount: 5, insertRate: 0.5, insertCount: 2, faultSeed: 3 },
    });
    try {
      const pages = await allPages(`${service.listUrl}?limit=30`);
      expect(new Set(pages.map((p) => p.count)).size).toBeGreaterThan(1);
      const seen = new Set(pages.flatMap((p) => p.results.map((r) => r.id as number)));
      const stable = service.dataset.stableIds();
      expect(stable.some((id) => !seen.has(id))).toBe(true);
      const everListed = new Set([...service.dataset.initialIds(), ...service.dataset.insertedIds()]);
      for (const id of seen) expect(everListed.has(id)).toBe(true);
      const now = new Set(service.dataset.ids());
      expect(now).toEqual(new Set([...everListed].filter((id) => !service.dataset.deletedIds().includes(id))));
    } finally {
      await service.close();
    }
  });
});

describe('edits', () => {
  it('edit records in place before a request is answered: same ids and order, the edited values served', async () => {
    const service = await startService({ records: N, seed: 4, faults: { editRate: 1, editCount: 2 } });
    try {
      const before = service.dataset.ids();
      const page = await getPage(`${service.listUrl}?limit=1000`);
      expect(page.count).toBe(N);
      expect(page.results.map((r) => r.id)).toEqual(before);
      const edited = service.dataset.mutations().filter((m) => m.kind === 'edit');
      expect(edited).toHaveLength(2);
      expect(service.stats.mutations.edited).toBe(2);
      for (const { id } of edited) {
        const served = page.results.find((r) => r.id === id)!;
        expect(served['name']).toMatch(/ \(edited \d+\)$/);
        expect(served).toEqual(JSON.parse(service.dataset.recordJson(id)));
      }
      expect(service.dataset.stableIds()).toEqual(before);
      expect(() => service.setFaults({ editRate: 2 })).toThrow('service: editRate must be a probability from 0 to 1');
      expect(() => service.setFaults({ editCount: 0.5 })).toThrow('service: editCount must be a non-negative integer');
    } finally {
      await service.close();
    }
  });

  it('draw no other fault differently: with editRate 0, the same requests mutate the same rows', async () => {
    const faults = { insertRate: 0.5, deleteRate: 0.5, faultSeed: 7 };
    const runs = [];
    for (const editRate of [0, 1]) {
      const service = await startService({ records: N, seed: 4, faults: { ...faults, editRate } });
      try {
        await allPages(`${service.listUrl}?limit=50`);
        runs.push(
          service.dataset
            .mutations()
            .filter((m) => m.kind !== 'edit')
            .map((m) => [m.kind, m.id]),
        );
      } finally {
        await service.close();
      }
    }
    expect(runs[0]).not.toHaveLength(0);
    expect(runs[1]).toEqual(runs[0]);
  });
});

describe('unstable order', () => {
  it('rotate: a request is served from a scan that starts elsewhere — same set, different order', async () => {
    const service = await startService({ records: N, seed: 4, faults: { unstableOrderRate: 1 } });
    try {
      const stable = service.dataset.ids();
      const served = (await getPage(`${service.listUrl}?limit=1000`)).results.map((r) => r.id as number);
      expect(served).not.toEqual(stable);
      expect(new Set(served)).toEqual(new Set(stable));
      const start = stable.indexOf(served[0]!);
      expect(served).toEqual([...stable.slice(start), ...stable.slice(0, start)]);
      expect(service.stats.rotatedScans).toBe(1);
    } finally {
      await service.close();
    }
  });

  it('rotate: paging by offset then repeats some records and skips others', async () => {
    const service = await startService({ records: N, seed: 4, faults: { unstableOrderRate: 0.5, faultSeed: 2 } });
    try {
      const ids = (await allPages(`${service.listUrl}?limit=30`)).flatMap((p) => p.results.map((r) => r.id as number));
      expect(ids).toHaveLength(N);
      expect(new Set(ids).size).toBeLessThan(N);
      expect(service.dataset.ids().filter((id) => !ids.includes(id)).length).toBeGreaterThan(0);
    } finally {
      await service.close();
    }
  });

  it('move: rows move to the end for good, the set stays the same', async () => {
    const service = await startService({
      records: N,
      seed: 4,
      faults: { unstableOrderRate: 1, unstableOrderMode: 'move', moveCount: 5 },
    });
    try {
      const before = service.dataset.ids();
      await getPage(`${service.listUrl}?limit=1`);
      await getPage(`${service.listUrl}?limit=1`);
      const after = service.dataset.ids();
      expect(after).not.toEqual(before);
      expect(new Set(after)).toEqual(new Set(before));
      const moved = service.dataset
        .mutations()
        .filter((m) => m.kind === 'move')
        .map((m) => m.id);
      expect(moved).toHaveLength(10);
      expect(after.slice(-5)).toEqual(moved.slice(-5));
      expect(service.stats.mutations.moved).toBe(10);
      expect(service.dataset.stableIds()).toEqual(before);
    } finally {
      await service.close();
    }
  });
});

describe('orphans', () => {
  it('are counted in count but dropped from pages, so pages come up short before the end', async () => {
    const service = await startService({ records: N, seed: 4, faults: { orphanRate: 0.2 } });
    try {
      const pages = await allPages(`${service.listUrl}?limit=100`);
      expect(pages).toHaveLength(3);
      for (const page of pages) {
        expect(page.count).toBe(N);
        expect(page.results.length).toBeLessThan(100);
      }
      const served = pages.flatMap((p) => p.results.map((r) => r.id as number));
      expect(served).toEqual(service.servedIds());
      const orphans = service.dataset.ids().filter((id) => service.isOrphan(id));
      expect(orphans.length).toBeGreaterThan(30);
      expect(orphans.length).toBeLessThan(100);
      for (const id of orphans) expect(served).not.toContain(id);
      expect(service.stats.orphansDropped).toBe(orphans.length);
    } finally {
      await service.close();
    }
  });
});
