import { describe, expect, it } from 'vitest';
import { parseCpuList, pinnedArgv } from './pinning.js';

describe('pinning the bench runs with taskset', () => {
  it('reads the CPU lists Linux writes', () => {
    expect(parseCpuList('0-1')).toEqual([0, 1]);
    expect(parseCpuList('3')).toEqual([3]);
    expect(parseCpuList('4-5,0,2-3')).toEqual([0, 2, 3, 4, 5]);
    expect(() => parseCpuList('0-')).toThrow('bench: not a CPU list: "0-"');
    expect(() => parseCpuList('3-1')).toThrow('bench: not a CPU list: "3-1"');
  });

  it('puts taskset -c CPU in front of a pinned command only', () => {
    expect(pinnedArgv(1, ['node', 'x.js', '--a'])).toEqual(['taskset', '-c', '1', 'node', 'x.js', '--a']);
    expect(pinnedArgv(undefined, ['node', 'x.js'])).toEqual(['node', 'x.js']);
  });
});
