import { describe, expect, it } from 'vitest';
import { tokenGoesTo } from '../../src/files/token-host.js';

describe('tokenGoesTo', () => {
  it('sends the token to a service the caller named, or to the default service only', () => {
    expect(tokenGoesTo('https://neurovault.org', false)).toBe(true);
    expect(tokenGoesTo('https://neurovault.org/', false)).toBe(true);
    expect(tokenGoesTo('http://127.0.0.1:8080', true)).toBe(true);
    for (const other of [
      'http://127.0.0.1:8080',
      'http://neurovault.org', // not over plain http either
      'https://neurovault.org:8443',
      'https://neurovault.org.example.com',
      'https://evil.example/neurovault.org',
    ])
      expect(tokenGoesTo(other, false), other).toBe(false);
  });
});
