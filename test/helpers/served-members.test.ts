import { describe, expect, it } from 'vitest';
import { servedExtra, servedMembers } from './served-members.js';

describe("servedMembers (the tests' own reading of a served record)", () => {
  const text =
    '{"id": 7, "name": "a, \\"b\\" {c}", "big": 12345678901234567890, "one" : 1.0,' +
    ' "nested": { "a" : [1, 2.50, {"b":null}], "c":"x\\"y" }, "dup": 1, "e": 1E5, "dup": [2], "z": -0}';

  it('cuts each member as served, strings, nesting and spacing inside values kept', () => {
    expect(servedMembers(text).map((m) => m.text)).toEqual([
      '"id":7',
      '"name":"a, \\"b\\" {c}"',
      '"big":12345678901234567890',
      '"one":1.0',
      '"nested":{ "a" : [1, 2.50, {"b":null}], "c":"x\\"y" }',
      '"dup":1',
      '"e":1E5',
      '"dup":[2]',
      '"z":-0',
    ]);
  });

  it('gives extra: the unknown members, a key served twice once, its last value at its last place', () => {
    expect(servedExtra(text, new Set(['id', 'name', 'nested']))).toBe(
      '{"big":12345678901234567890,"one":1.0,"e":1E5,"dup":[2],"z":-0}',
    );
    expect(servedExtra('{"id": 1, "name": "x"}', new Set(['id', 'name']))).toBeNull();
  });
});
