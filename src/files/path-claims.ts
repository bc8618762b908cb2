/**
 * The paths the files of one run take, claimed as each file is settled: two selected files may not share a path, and
 * with sub-folders one file's path may not be a folder another's needs (`1/x` and `1/x/T.nii.gz`), or both would be
 * fetched at once and the second rename fail the run. The check and the claim are one synchronous step, so files
 * settled concurrently cannot both pass it.
 */
import { foldersBetween } from './path-in-the-way.js';

/** The paths claimed so far under `outDir`, and the folders they need. */
export class PathClaims {
  private readonly files = new Set<string>();
  private readonly folders = new Set<string>();

  constructor(private readonly outDir: string) {}

  /** Claims `path` for a file; or why it cannot be claimed (another selected file's path, or a folder one needs). */
  claim(path: string): string | undefined {
    if (this.files.has(path)) return `${path} is also the path of another selected file`;
    if (this.folders.has(path)) return `${path} is a folder another selected file's path needs`;
    const above = foldersBetween(this.outDir, path);
    const taken = above.find((folder) => this.files.has(folder));
    if (taken !== undefined) return `${path}: ${taken} is the path of another selected file`;
    this.files.add(path);
    for (const folder of above) this.folders.add(folder);
    return undefined;
  }
}
