/**
 * A package registry on loopback that knows only the packages of package-lock.json, so that npm installs img-etl's
 * tarball without the network. It serves each package's metadata from the lockfile; the tarballs npm takes from its own
 * cache by their integrity (`npm ci` filled it), and a tarball not there is answered with a 404 that names it.
 * (`npm install --offline` alone does not do: npm 11 asks for the full metadata of each dependency, while `npm ci`
 * caches only the abbreviated one.)
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface LockEntry {
  name?: string;
  version: string;
  integrity?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  engines?: Record<string, string>;
  bin?: Record<string, string>;
}

/** A running lockfile registry: its URL for `--registry`, and how to stop it. */
export interface LockfileRegistry {
  url: string;
  /** The tarballs npm asked for that were not in its cache (`name@version`). */
  missing: string[];
  close(): Promise<void>;
}

/** Each package's versions (production dependencies only) as registry metadata, by package name. */
async function packuments(lockFile: string, base: string): Promise<Map<string, object>> {
  const lock = JSON.parse(await readFile(lockFile, 'utf8')) as { packages: Record<string, LockEntry> };
  const byName = new Map<string, { name: string; versions: Record<string, object> }>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev === true || entry.integrity === undefined) continue;
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const { version, integrity, dependencies, optionalDependencies, peerDependencies, engines, bin } = entry;
    const tarball = `${base}/${name}/-/${name.split('/').pop()}-${version}.tgz`;
    const doc = byName.get(name) ?? { name, versions: {} };
    doc.versions[version] = {
      ...{ name, version, dependencies, optionalDependencies, peerDependencies, engines, bin },
      dist: { tarball, integrity },
    };
    byName.set(name, doc);
  }
  const latest = (doc: { versions: Record<string, object> }) => Object.keys(doc.versions).at(-1)!;
  return new Map([...byName].map(([name, doc]) => [name, { ...doc, 'dist-tags': { latest: latest(doc) } }]));
}

/** Starts a registry on a free loopback port serving the packages of `lockFile`. */
export async function startLockfileRegistry(lockFile: string): Promise<LockfileRegistry> {
  const missing: string[] = [];
  let docs = new Map<string, object>();
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!.slice(1));
    const doc = docs.get(path);
    res.setHeader('cache-control', 'no-store'); // nothing of this registry stays in npm's cache
    if (doc !== undefined) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(doc));
      return;
    }
    if (path.includes('/-/')) missing.push(path.split('/-/')[1]!.replace(/\.tgz$/, ''));
    res.statusCode = 404;
    res.end(JSON.stringify({ error: `${path} is not in the npm cache (run npm ci with a registry first)` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  docs = await packuments(lockFile, url);
  return { url, missing, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
