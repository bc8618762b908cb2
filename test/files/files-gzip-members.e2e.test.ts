/**
 * A `.nii.gz` is verified as exactly one complete gzip member with nothing after it. A valid NIfTI
 * member followed by a second gzip member of junk, or by bytes that are not gzip, is `corrupt` with a one-line reason
 * naming what follows, and never lands under its final name; a plain valid file is still ok.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { niftiImage } from '../../src/service/media/nifti-gzip-file.js';
import { bytesOf, readFilesTable, sha256 } from '../helpers/files-run.js';
import { startMediaService, type MediaService } from '../helpers/media-routes.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';

const image = gzipSync(Buffer.concat([niftiImage(7), Buffer.alloc(50_000, 3)]));
const junk = gzipSync(Buffer.from('junk after the image, in a gzip member of its own'));
const FILES = [
  { name: 'valid.nii.gz', body: image },
  { name: 'second-member.nii.gz', body: Buffer.concat([image, junk]) },
  { name: 'trailing.nii.gz', body: Buffer.concat([image, Buffer.from('trailing bytes')]) },
  { name: 'zeros.nii.gz', body: Buffer.concat([image, Buffer.alloc(16)]) },
];
let root: string;
let media: MediaService;

beforeAll(async () => {
  root = await tempDir();
  media = await startMediaService(
    root,
    FILES.map(({ name, body }) => ({ name, version: { body, etag: `"${name}"` } })),
  );
});

afterAll(async () => {
  await media.server.close();
  await removeDir(root);
});

it('a second gzip member or bytes after the member: corrupt, the reason names them; one member: ok', async () => {
  const out = join(root, 'files');
  const run = await runCliHere(['files', media.snap, '--out', out, '--max-attempts', '2', '--retry-delay', '0.01']);
  expect(run.code).toBe(3);
  const rows = await readFilesTable(out);
  expect(rows.map((r) => [r['path'], r['status'], r['sha256']])).toEqual(
    media.routes.map((route, i) => {
      const path = join(String(route.record['collection_id']), FILES[i]!.name); // relative to --out
      return i === 0 ? [path, 'ok', sha256(image)] : [path, 'corrupt', null];
    }),
  );
  const reasons = rows.map((r) => r['reason'] as string | null);
  expect(reasons[0]).toBeNull();
  expect(reasons[1]).toContain(`is a complete gzip member followed by a second gzip member (${junk.length} bytes)`);
  expect(reasons[2]).toContain('is a complete gzip member followed by 14 bytes that are not gzip');
  expect(reasons[3]).toContain('is a complete gzip member followed by 16 bytes that are not gzip');
  for (const reason of reasons.slice(1)) expect(reason!.split('\n')).toHaveLength(1);
  expect((await bytesOf(join(out, rows[0]!['path'] as string))).equals(image)).toBe(true);
  for (const row of rows.slice(1)) {
    const path = row['path'] as string;
    expect(existsSync(join(out, path)), path).toBe(false);
  }
  expect(run.stderr).toContain('second gzip member');
});
