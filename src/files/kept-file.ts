/** Whether a file already under its final name is kept, checked again, fetched again, or someone else's. */
import { rm, stat } from 'node:fs/promises';
import type { VerifiedFile } from './files-table.js';
import { verifyImageFile } from './verify-image-file.js';

/** A file kept from disk: its size, digest and mtime. */
export type Kept = Pick<VerifiedFile, 'bytes' | 'sha256'> & { mtimeNs: bigint };

/**
 * A file already under its final name: kept as files.parquet vouches for it (re-hashed first when its size or mtime
 * differ from the record, or `verify`), or checked again from disk when files.parquet does not list it; undefined to
 * fetch it (a listed file whose digest no longer matches is removed first); `theirs` for a file img-etl did not put
 * there (files.parquet does not vouch for it and it does not verify as the listed file), which is never replaced.
 */
export async function keptFile(
  path: string,
  listed: number | undefined,
  record: VerifiedFile | undefined,
  verify: boolean,
): Promise<Kept | 'theirs' | undefined> {
  let found: { size: bigint; mtimeNs: bigint };
  try {
    found = await stat(path, { bigint: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const size = Number(found.size);
  const mtimeNs = found.mtimeNs;
  const changed = listed !== undefined && size !== listed;
  if (record !== undefined) {
    if (changed && record.bytes === size) {
      // The listing gives another size now: fetched again. Removed first, as a file whose digest no longer matches:
      // left under its final name while that fetch fails, no record would vouch for it and the next run would refuse
      // it as a file img-etl did not write.
      await rm(path, { force: true });
      return undefined;
    }
    const same = record.bytes === size && record.mtimeNs === mtimeNs;
    if (same && !verify) return { bytes: record.bytes, sha256: record.sha256, mtimeNs };
    if (record.bytes === size && (await verifyImageFile(path)).sha256 === record.sha256)
      return { bytes: record.bytes, sha256: record.sha256, mtimeNs };
    await rm(path, { force: true }); // changed since img-etl verified it: no longer a verified file
    return undefined;
  }
  if (changed) return 'theirs';
  const check = await verifyImageFile(path);
  return check.problem === undefined ? { bytes: check.bytes, sha256: check.sha256, mtimeNs } : 'theirs';
}
