/** checkOptions: every command's values checked against the one table, each kind with its one message. */
import { describe, expect, it } from 'vitest';
import { checkOptions, type OptionTable } from '../../../src/cli/options/option-spec.js';
import { camelCase } from '../../../src/cli/options/strict-booleans.js';
import { ALL_OPTIONS, SERVE_OPTIONS, SNAPSHOT_OPTIONS } from '../../../src/cli/options/option-table.js';
import { FAULT_KNOBS, NO_FAULTS } from '../../../src/service/service-options.js';

const TABLE: OptionTable = {
  count: { type: 'number', values: { whole: [1, 64] } },
  floor: { type: 'number', values: { whole: [0] } },
  wait: { type: 'number', values: { positive: 'seconds', max: 86_400 } },
  days: { type: 'number', values: { from0: 'days' } },
  share: { type: 'number', values: { probability: true } },
  format: { type: 'string', values: { oneOf: ['text', 'json'] } },
  out: { type: 'string', values: { path: 'folder' } },
  token: { type: 'string', values: { token: true } },
  keep: { type: 'number', needs: { option: 'snapshot' } },
  snapshot: { type: 'boolean' },
};

describe('checkOptions', () => {
  it.each([
    [{ count: 0 }, '--count: expected a whole number from 1 to 64, got 0'],
    [{ count: 65 }, '--count: expected a whole number from 1 to 64, got 65'],
    [{ count: 2.5 }, '--count: expected a whole number from 1 to 64, got 2.5'],
    [{ count: NaN }, '--count: expected a whole number from 1 to 64, got something that is not a number'],
    [{ floor: -1 }, '--floor: expected a whole number from 0, got -1'],
    [{ wait: 0 }, '--wait: expected a positive number of seconds, got 0'],
    [{ wait: 86_401 }, '--wait: expected at most 86400 seconds (a day), got 86401'],
    [{ days: -0.5 }, '--days: expected a number of days from 0, got -0.5'],
    [{ share: 1.5 }, '--share: expected a probability from 0 to 1, got 1.5'],
    [{ format: 'xml' }, '--format: expected text or json, got "xml"'],
    [{ out: '' }, '--out: expected a folder, got ""'],
    [{ out: ['a', 'b'] }, '--out: given more than once ("a", "b"); give one folder'],
    [
      { token: 'a b' },
      '--token: expected one token of visible ASCII characters, without spaces or control characters (not shown here)',
    ],
    [{ keep: 3 }, '--keep: only with --snapshot'],
  ])('refuses %j in one line naming the option', (args, message) => {
    expect(() => checkOptions(args, TABLE)).toThrow(message);
  });

  it('passes values in range, values not given, and an option given with what it needs', () => {
    const args = { count: 64, floor: 0, wait: 86_400, days: 0, share: 1, format: 'json', out: 'o', token: 'abc' };
    expect(() => checkOptions({ ...args, keep: 3, snapshot: true }, TABLE)).not.toThrow();
    expect(() => checkOptions({}, TABLE)).not.toThrow();
  });

  it("passes every option's own default", () => {
    const defaults = Object.fromEntries(
      Object.entries(ALL_OPTIONS).map(([name, option]) => [camelCase(name), option.default]),
    );
    expect(() => checkOptions({ ...defaults, snapshot: true }, ALL_OPTIONS)).not.toThrow();
  });
});

describe('the option table', () => {
  it('gives serve a flag for every fault knob, with the default the service applies', () => {
    for (const [key, knob] of Object.entries(FAULT_KNOBS)) {
      const flag = Object.entries(SERVE_OPTIONS).find(([, option]) => option.describe === knob.describe)?.[0];
      expect(flag, key).toBeDefined();
      expect(SERVE_OPTIONS[flag!]!.default, key).toBe(NO_FAULTS[key as keyof typeof NO_FAULTS]);
    }
  });

  it('reads the run defaults from where the policy lives', async () => {
    const { DEFAULT_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_PASSES } =
      await import('../../../src/extract/defaults.js');
    expect(SNAPSHOT_OPTIONS.timeout.default * 1000).toBe(DEFAULT_TIMEOUT_MS);
    expect(SNAPSHOT_OPTIONS['max-page-mb'].default * 1024 * 1024).toBe(DEFAULT_MAX_BODY_BYTES);
    expect(SNAPSHOT_OPTIONS['max-passes'].default).toBe(DEFAULT_MAX_PASSES);
  });
});
