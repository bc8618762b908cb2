/**
 * The numbers people read in the summaries, the report and `diff`: one formatBytes for them all (diff-command kept
 * its own, which said `1500.0 MB` for 1.5 GB).
 */
import { describe, expect, it } from 'vitest';
import { counted, formatBytes, formatDuration, thousands } from '../../../src/cli/printing/human-numbers.js';

describe('formatBytes', () => {
  it('gives bytes, then SI units with one decimal', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(812)).toBe('812 B');
    expect(formatBytes(12_345)).toBe('12.3 kB');
    expect(formatBytes(12_300_000)).toBe('12.3 MB');
    expect(formatBytes(1_500_000_000)).toBe('1.5 GB');
  });

  it('moves to the next unit when rounding reaches 1000 of one', () => {
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(999_960)).toBe('1.0 MB');
    expect(formatBytes(999_949)).toBe('999.9 kB');
    expect(formatBytes(999_960_000)).toBe('1.0 GB');
  });
});

describe('the other numbers', () => {
  it('groups thousands and counts nouns', () => {
    expect(thousands(1234567)).toBe('1,234,567');
    expect(counted(1, 'page')).toBe('1 page');
    expect(counted(2, 'pass', 'passes')).toBe('2 passes');
  });

  it('rounds durations up to the second', () => {
    expect(formatDuration(41.2)).toBe('42 s');
    expect(formatDuration(185)).toBe('3 min 05 s');
    expect(formatDuration(3720)).toBe('1 h 02 min');
  });
});
