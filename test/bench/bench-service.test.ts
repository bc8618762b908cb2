import { describe, expect, it } from 'vitest';
import { serviceOptionsOf, serviceProcessArgs } from './bench-service.js';

describe('the service process of the bench', () => {
  const load = { records: 200_000, seed: 1, workers: 0, pageLatencyMs: 0, recordLatencyMs: 0 };

  it('serves the collection endpoints unless the load model says not to', () => {
    const faults = { workers: 0, pageLatencyMs: 0, recordLatencyMs: 0 };
    expect(serviceOptionsOf(serviceProcessArgs(load))).toEqual({ records: 200_000, seed: 1, faults });
    expect(serviceOptionsOf(serviceProcessArgs({ ...load, collectionEndpoints: true }))).toEqual({
      records: 200_000,
      seed: 1,
      faults,
    });
    const without = serviceOptionsOf(serviceProcessArgs({ ...load, collectionEndpoints: false }));
    expect(without).toEqual({ records: 200_000, seed: 1, faults, collectionEndpoints: false });
  });

  it('passes the faults, the latencies and the files rate through', () => {
    const model = { ...load, workers: 4, pageLatencyMs: 20, faults: { unstableOrderRate: 1 }, fileBytesPerSecond: 9 };
    expect(serviceOptionsOf(serviceProcessArgs(model))).toEqual({
      records: 200_000,
      seed: 1,
      faults: { unstableOrderRate: 1, fileBytesPerSecond: 9, workers: 4, pageLatencyMs: 20, recordLatencyMs: 0 },
    });
  });

  it('serves the list in the real order when the load model says so, else in id order', () => {
    const faults = { workers: 0, pageLatencyMs: 0, recordLatencyMs: 0 };
    const real = serviceOptionsOf(serviceProcessArgs({ ...load, listOrder: 'real' }));
    expect(real).toEqual({ records: 200_000, seed: 1, faults, listOrder: 'real' });
    expect(serviceOptionsOf(serviceProcessArgs({ ...load, listOrder: 'id' }))).toEqual({
      records: 200_000,
      seed: 1,
      faults,
    });
  });
});
