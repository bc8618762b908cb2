import { basename, isAbsolute, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { targetPath } from '../../src/files/target-path.js';

const OUT = '/data/maps';
const path = (url: string, collection: number | null = 5): string | undefined => {
  const target = targetPath(OUT, collection, url, 22);
  return 'path' in target ? target.path : undefined;
};

describe('targetPath', () => {
  it('keeps the URL path below /media/images/<collection_id>/, its file name alone elsewhere', () => {
    expect(path('http://h/media/images/5/a.nii.gz')).toBe('/data/maps/5/a.nii.gz');
    expect(path('http://h/media/images/5/nidm_a/TStatistic.nii.gz')).toBe('/data/maps/5/nidm_a/TStatistic.nii.gz');
    expect(path('http://h/media/images/5/x/y/z.nii.gz?v=2')).toBe('/data/maps/5/x/y/z.nii.gz');
    expect(path('http://h/media/images/5/a%20b/c%C3%A9.nii.gz')).toBe('/data/maps/5/a b/cé.nii.gz');
    // Another collection's folder or another place on the host: the file name only, as before sub-folders.
    expect(path('http://h/media/images/6/sub/a.nii.gz')).toBe('/data/maps/5/a.nii.gz');
    expect(path('http://h/media/images/55/sub/a.nii.gz')).toBe('/data/maps/5/a.nii.gz');
    expect(path('http://h/files/sub/a.nii.gz')).toBe('/data/maps/5/a.nii.gz');
    expect(path('http://h/media/images/5/sub/a.nii.gz', null)).toBe('/data/maps/no-collection/a.nii.gz');
  });

  it('never leaves <out>/<collection_id>/, whatever the URL holds', () => {
    const hostile = [
      'http://h/media/images/5/../../../etc/passwd',
      'http://h/media/images/5/%2e%2e/%2e%2e/x.nii.gz',
      'http://h/media/images/5/sub/..%2f..%2f..%2fx.nii.gz',
      'http://h/media/images/5/sub%2F..%2F..%2Fx.nii.gz',
      'http://h/media/images/5/%2Fetc%2Fpasswd',
      'http://h/media/images/5/sub/%2e%2e',
      'http://h/media/images/5/%5C..%5Cx.nii.gz',
      'http://h/media/images/5/..%5C..%5Cx.nii.gz',
      'http://h/media/images/5\\..\\..\\x.nii.gz',
      'http://h/media/images/5//etc/x.nii.gz',
      'http://h/media/images/5/a/%00/x.nii.gz',
      'http://h/media/images/5/a/x.nii.gz.part',
      'http://h/media/images/5/',
      'http://h/media/images/5/%E0%A4%A.nii.gz',
    ];
    for (const url of hostile) {
      const target = targetPath(OUT, 5, url, 22);
      if ('problem' in target) continue;
      const inside = relative('/data/maps/5', target.path);
      expect(inside.startsWith('..') || isAbsolute(inside) || inside === '', `${url} -> ${target.path}`).toBe(false);
    }
    expect(targetPath(OUT, 5, 'http://h/media/images/5/sub%2F..%2Fx.nii.gz', 22)).toEqual({
      problem: 'http://h/media/images/5/sub%2F..%2Fx.nii.gz names no usable file name ("sub/../x.nii.gz")',
    });
    expect(targetPath(OUT, 5, 'http://h/media/images/5/%2e%2e%5Cx/a.nii.gz', 22)).toEqual({
      problem: 'http://h/media/images/5/%2e%2e%5Cx/a.nii.gz names no usable folder name ("..\\\\x")',
    });
  });

  it('shortens a name over 255 bytes with .part.validator to <prefix>-<image id><extension>', () => {
    const name = (url: string): string => basename(path(url)!);
    const fits = 'a'.repeat(240 - '.nii.gz'.length) + '.nii.gz'; // 240 bytes: with .part.validator, 255
    expect(name(`http://h/media/images/5/${fits}`)).toBe(fits);
    const over = 'a'.repeat(241 - '.nii.gz'.length) + '.nii.gz';
    expect(name(`http://h/media/images/5/${over}`)).toBe(`${'a'.repeat(255 - 15 - '-22.nii.gz'.length)}-22.nii.gz`);
    // Multi-byte characters are never cut: 'é' is 2 bytes, '😀' 4.
    for (const char of ['é', '😀']) {
      const long = `${char.repeat(150)}.surf.gii`;
      const short = name(`http://h/media/images/5/sub/${encodeURIComponent(long)}`);
      expect(short).toMatch(new RegExp(`^(${char})+-22\\.surf\\.gii$`, 'u'));
      expect(Buffer.byteLength(`${short}.part.validator`)).toBeLessThanOrEqual(255);
      expect(Buffer.byteLength(`${short}.part.validator`)).toBeGreaterThan(255 - Buffer.byteLength(char));
    }
    expect(name(`http://h/media/images/5/${'b'.repeat(300)}`)).toBe(`${'b'.repeat(255 - 15 - 3)}-22`);
  });

  it('leaves room for the .part.validator a download keeps beside the .part (a name + 15 bytes within 255)', () => {
    const name = (url: string): string => basename(path(url)!);
    const fits = 'a'.repeat(240 - '.nii.gz'.length) + '.nii.gz'; // 240 bytes: with .part.validator, 255
    expect(name(`http://h/media/images/5/${fits}`)).toBe(fits);
    const over = 'a'.repeat(241 - '.nii.gz'.length) + '.nii.gz';
    const short = name(`http://h/media/images/5/${over}`);
    expect(short).toBe(`${'a'.repeat(255 - 15 - '-22.nii.gz'.length)}-22.nii.gz`);
    expect(Buffer.byteLength(`${short}.part.validator`)).toBe(255);
  });

  it('refuses a folder name over 255 bytes and a path over 4095 bytes with .part', () => {
    const folder = 'f'.repeat(256);
    expect(targetPath(OUT, 5, `http://h/media/images/5/${folder}/a.nii.gz`, 22)).toEqual({
      problem: `http://h/media/images/5/${folder}/a.nii.gz names a folder name of 256 bytes (at most 255)`,
    });
    const deep = Array.from({ length: 16 }, () => 'f'.repeat(255)).join('/');
    const target = targetPath(OUT, 5, `http://h/media/images/5/${deep}/a.nii.gz`, 22);
    expect('problem' in target && target.problem).toMatch(/ makes a path of 41\d\d bytes \(at most 4095\)$/);
  });
});
