/**
 * Where a fetched file lands: `<out>/<collection_id>/` plus the URL's path below `/media/images/<collection_id>/` (a
 * NIDM result's sub-folders kept, so two images of one collection whose files share a name in different folders do not
 * meet), or the URL's file name alone when the URL is elsewhere: the layout of a collection cache. Each part is
 * decoded on its own and must be a plain name, so no link can reach outside `<out>/<collection_id>/`.
 */
import { join } from 'node:path';

/** The path of a link's file under `outDir`, or a reason the URL names no usable file. */
export function targetPath(
  outDir: string,
  collectionId: number | null,
  url: string,
): { path: string } | { problem: string } {
  const folder = collectionId === null ? 'no-collection' : String(collectionId);
  let parts: string[];
  try {
    const pathname = new URL(url).pathname;
    const media = `/media/images/${folder}/`;
    const below =
      collectionId !== null && pathname.startsWith(media)
        ? pathname.slice(media.length)
        : pathname.slice(pathname.lastIndexOf('/') + 1);
    parts = below.split('/').map((part) => decodeURIComponent(part));
  } catch {
    return { problem: `${JSON.stringify(url)} is not a URL` };
  }
  const last = parts.length - 1;
  const bad = parts.findIndex((part, i) => unusable(part) || (i === last && part.endsWith('.part')));
  if (bad !== -1) {
    const what = bad === last ? 'file name' : 'folder name';
    return { problem: `${url} names no usable ${what} (${JSON.stringify(parts[bad])})` };
  }
  return { path: join(outDir, folder, ...parts) };
}

/** A part of a path that is not one plain name: empty, `.` or `..`, or holding a slash, backslash or control byte. */
function unusable(part: string): boolean {
  // eslint-disable-next-line no-control-regex
  return part === '' || part === '.' || part === '..' || /[/\\\u0000-\u001f]/.test(part);
}
