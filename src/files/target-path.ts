/** Where a fetched file lands: `<out>/<collection_id>/<file name from the URL>`, the layout of a collection cache. */
import { join } from 'node:path';

/** The path of a link's file under `outDir`, or a reason the URL names no usable file. */
export function targetPath(
  outDir: string,
  collectionId: number | null,
  url: string,
): { path: string } | { problem: string } {
  let name: string;
  try {
    const pathname = new URL(url).pathname;
    name = decodeURIComponent(pathname.slice(pathname.lastIndexOf('/') + 1));
  } catch {
    return { problem: `${JSON.stringify(url)} is not a URL` };
  }
  // eslint-disable-next-line no-control-regex
  if (name === '' || name === '.' || name === '..' || /[/\\\u0000-\u001f]/.test(name) || name.endsWith('.part')) {
    return { problem: `${url} names no usable file name (${JSON.stringify(name)})` };
  }
  return { path: join(outDir, collectionId === null ? 'no-collection' : String(collectionId), name) };
}
