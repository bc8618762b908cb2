/**
 * img-etl runs in a process started with `node --disallow-code-generation-from-strings` (no eval, no new Function):
 * nothing it loads generates code from text. The real CLI against the bundled service, every output read back.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import { startService } from '../../src/service/index.js';
import { expectedRow, expectRowsMatch } from '../helpers/expected-row.js';
import { fixtureLines, fixtureRecords } from '../helpers/fixture-service.js';
import { readParquetRows } from '../helpers/read-snapshot.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCli } from '../helpers/run-cli.js';

let out: string;
beforeEach(async () => {
  out = await tempDir();
});
afterEach(async () => {
  await removeDir(out);
});

describe('img-etl under node --disallow-code-generation-from-strings', () => {
  it.each(['wasm', 'parquetjs'])('writes every format with the values served, and a reject (parquet %s)', async (e) => {
    const bad = { ...fixtureRecords()[0], id: 99_000_001, file_size: 'large' };
    const service = await startService({ records: 150, seed: 5, data: [...fixtureLines(), JSON.stringify(bad)] });
    try {
      const args = ['--base-url', service.url, '--to', 'parquet,arrow,csv', '--parquet-engine', e, '--page-size', '40'];
      const nodeArgs = [...NODE_FLAGS, '--disallow-code-generation-from-strings']; // the program's, and this one
      const hardened = await runCli([...args, '--out', join(out, 'hardened')], { nodeArgs });
      expect(hardened.stderr).not.toMatch(/Error|at .*\.js:\d+/);
      expect(hardened.code).toBe(0);

      const served = [...service.servedRecords()].filter((r) => r['id'] !== bad.id);
      const expected = new Map(served.map((r) => [BigInt(r['id'] as number), expectedRow(r)]));
      expectRowsMatch(await readParquetRows(join(out, 'hardened')), expected);
      const arrow = tableFromIPC(await readFile(join(out, 'hardened', 'images.arrow')));
      const ids = (values: Iterable<unknown>) => [...values].map(Number).sort((a, b) => a - b);
      expect(ids(arrow.getChild('id')!)).toEqual(ids(served.map((r) => r['id'])));

      const rejects = (await readFile(join(out, 'hardened', 'rejects.ndjson'), 'utf8')).trim().split('\n');
      const paths = rejects.map((line) => (JSON.parse(line) as { issues: { path: string[] }[] }).issues[0]!.path);
      expect(paths).toEqual([['file_size']]);
      // The same bytes as an ordinary process writes (Parquet and Arrow files carry the snapshot time).
      const ordinary = await runCli([...args, '--out', join(out, 'ordinary')]);
      expect(ordinary.code).toBe(0);
      for (const name of ['images.csv', 'rejects.ndjson']) {
        const hardenedBytes = await readFile(join(out, 'hardened', name));
        expect(hardenedBytes.equals(await readFile(join(out, 'ordinary', name))), name).toBe(true);
      }
    } finally {
      await service.close();
    }
  });
});
