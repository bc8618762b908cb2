import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toRejects } from '../../src/load/to-rejects.js';
import { expectResultMatchesFile, listDir, removeDir, tempDir } from '../helpers/readers.js';
import { fixtureBatches, streamOf } from './fixture-rows.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await removeDir(dir);
});

describe('toRejects', () => {
  it('writes one JSON line per reject, url, issues and record, in stream order', async () => {
    const path = join(dir, 'rejects.ndjson');
    const batches = fixtureBatches();
    const result = await toRejects(streamOf(batches), { path });
    const rejects = batches.flatMap((b) => b.rejects);
    expect(rejects.length).toBe(2);
    expect(result.count).toBe(2);
    expect(result.file).toMatchObject({ format: 'rejects', path, rows: 2 });
    await expectResultMatchesFile(result.file!);
    const text = await readFile(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(
      rejects.map((r) => ({ url: r.url, issues: r.issues, record: r.record })),
    );
    expect(Object.keys(JSON.parse(lines[0]!) as object)).toEqual(['url', 'issues', 'record']);
    expect(await listDir(dir)).toEqual(['rejects.ndjson']);
  });

  it("writes a reject's served text as is, on one line (with line breaks: no whitespace outside strings)", async () => {
    const path = join(dir, 'rejects.ndjson');
    const texts = [
      '{"id": 12345678901234567891, "x": [1.0, -0, 1e400], "s": "\\u00e9"}',
      '{\n  "id": "a",\r\n  "s": "two  words"\n}',
    ];
    const url = 'http://x/?offset=0';
    const issues = [{ path: ['id'], message: 'bad' }];
    const rejects = texts.map((text) => ({ url, record: JSON.parse(text) as unknown, text, issues }));
    await toRejects(streamOf([{ source: { url, offset: 0 }, rows: [], rejects }]), { path });
    const prefix = '{"url":"http://x/?offset=0","issues":[{"path":["id"],"message":"bad"}],"record":';
    expect(await readFile(path, 'utf8')).toBe(`${prefix}${texts[0]}}\n${prefix}{"id":"a","s":"two  words"}}\n`);
  });

  it('writes no file when there is no reject', async () => {
    const path = join(dir, 'rejects.ndjson');
    const clean = fixtureBatches().map((b) => ({ ...b, rejects: [] }));
    expect(await toRejects(streamOf(clean), { path })).toEqual({ count: 0, file: null });
    expect(await listDir(dir)).toEqual([]);
  });
});
