/**
 * Where a fetched file lands: `<out>/<collection_id>/` plus the URL's path below `/media/images/<collection_id>/` (a
 * NIDM result's sub-folders kept, so two images of one collection whose files share a name in different folders do not
 * meet), or the URL's file name alone when the URL is elsewhere: the layout of a collection cache. Each part is
 * decoded on its own and must be a plain name, so no link can reach outside `<out>/<collection_id>/`. A file name too
 * long for the file system once the download's `.part.validator` is added (over 255 bytes of UTF-8) is shortened to
 * `<prefix>-<image id><extension>`; a folder name or a whole path too long is a problem.
 */
import { join } from 'node:path';
import { VALIDATOR_SUFFIX } from './part-validator.js';

/** Bytes a file or folder name may hold (NAME_MAX of Linux and macOS file systems). */
const NAME_MAX = 255;
/** Bytes a path may hold, its terminating NUL left out (PATH_MAX 4096). */
const PATH_MAX = 4095;
/**
 * The longest name a download keeps beside a file's path: download-file.ts fetches into `<path>.part`, and
 * part-validator.ts keeps the `.part`'s validator in `<path>.part.validator`.
 */
const PART = `.part${VALIDATOR_SUFFIX}`;

/** The path of image `imageId`'s link's file under `outDir`, or a reason the URL names no usable file. */
export function targetPath(
  outDir: string,
  collectionId: number | null,
  url: string,
  imageId: number,
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
  // A name ending as a download's own files do (`<name>.part`, `<name>.part.validator`) would be one of another file's:
  // a file's, or a folder's that another file's download would then meet.
  const bad = parts.findIndex((part) => unusable(part) || part.endsWith('.part') || part.endsWith(PART));
  if (bad !== -1) {
    const what = bad === last ? 'file name' : 'folder name';
    return { problem: `${url} names no usable ${what} (${JSON.stringify(parts[bad])})` };
  }
  const long = parts.findIndex((part, i) => i < last && bytes(part) > NAME_MAX);
  if (long !== -1)
    return { problem: `${url} names a folder name of ${bytes(parts[long]!)} bytes (at most ${NAME_MAX})` };
  parts[last] = fitName(parts[last]!, imageId);
  const path = join(outDir, folder, ...parts);
  if (bytes(path + PART) > PATH_MAX)
    return { problem: `${url} makes a path of ${bytes(path + PART)} bytes (at most ${PATH_MAX})` };
  return { path };
}

/**
 * The name itself when it fits with its `.part.validator`, else `<prefix>-<image id><extension>`: the extension
 * (`.nii.gz`, `.gii`, up to two short parts) kept, since it says how the file is checked, and as much of the name
 * before it as fits.
 */
function fitName(name: string, imageId: number): string {
  if (bytes(name + PART) <= NAME_MAX) return name;
  const extension = /(\.[A-Za-z0-9]{1,8}){1,2}$/.exec(name)?.[0] ?? '';
  const tail = `-${imageId}${extension}`;
  let room = NAME_MAX - bytes(tail + PART);
  let prefix = '';
  for (const char of name.slice(0, name.length - extension.length)) {
    room -= bytes(char);
    if (room < 0) break;
    prefix += char;
  }
  return prefix + tail;
}

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** A part of a path that is not one plain name: empty, `.` or `..`, or holding a slash, backslash or control byte. */
function unusable(part: string): boolean {
  // eslint-disable-next-line no-control-regex
  return part === '' || part === '.' || part === '..' || /[/\\\u0000-\u001f]/.test(part);
}
