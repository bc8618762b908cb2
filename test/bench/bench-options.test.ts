import { describe, expect, it } from 'vitest';
import { parseBenchOptions } from './bench-options.js';

describe('the bench options', () => {
  it('leave img-etl at its own default page size and page the floor and the peer at 1000', () => {
    const defaults = { pageSize: undefined, peerPageSize: 1000, serverRecords: 20_000, concurrency: 4 };
    expect(parseBenchOptions([])).toMatchObject({ ...defaults, pin: true, unpinned: true });
    const set = parseBenchOptions(['--page-size', '500', '--no-pin', '--no-unpinned']);
    expect(set).toMatchObject({ pageSize: 500, pin: false, unpinned: false });
    const message = 'bench: --page-size: expected an integer of at least 1, got "0"';
    expect(() => parseBenchOptions(['--page-size', '0'])).toThrow(message);
  });
});
