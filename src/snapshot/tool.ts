/** The tool's name and version, read from package.json, as manifests and `--version` give them. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function readPackage(): { name: string; version: string } {
  // Walk up: this file runs from src/run (tests) and from dist/src/run (built).
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string };
  }
  return { name: 'img-etl', version: '0.0.0' };
}

const pkg = readPackage();

/** The tool's name, as manifests start: `img-etl`. */
export const TOOL_NAME = pkg.name;

/** The package version, `0.1.0` (what `img-etl --version` prints). */
export const VERSION = pkg.version;

/** The tool's name and version, as recorded in manifests: `img-etl 0.1.0`. */
export const TOOL = `${pkg.name} ${pkg.version}`;
