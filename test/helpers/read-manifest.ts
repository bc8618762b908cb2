import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Manifest } from '../../src/run/publish/manifest.js';

/** The manifest.json a run wrote into `dir`, typed as the run writes it. */
export async function readManifest(dir: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest;
}
