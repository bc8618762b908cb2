/**
 * Two `--snapshot` runs of the real CLI into one folder for the report tests: the 59 real records and generated ones,
 * then the same service with some records edited, some deleted and some inserted, so the second report has drift.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { Random, startService, type FaultOptions, type RunningService } from '../../src/service/index.js';
import { fixtureLines } from './fixture-service.js';
import { runCliHere } from './run-cli.js';

/** The two snapshots and what the second service served. */
export interface ReportSnapshots {
  /** The `--snapshot` base folder. */
  base: string;
  /** The snapshot folders, oldest first. */
  folders: string[];
  /** The records the second service served, parsed. */
  served: Record<string, unknown>[];
}

/**
 * Lines of the fixture with the first `edits` records' name and map_type changed; one name becomes "None" and one
 * description "NA", which a reader with pandas' default NA strings would lose.
 */
function editedLines(edits: number): string[] {
  return fixtureLines().map((line, i) => {
    if (i >= edits) return line;
    const record = JSON.parse(line) as Record<string, unknown>;
    record['name'] = i === 1 ? 'None' : `${String(record['name'])} (edited)`;
    if (i === 3) record['description'] = 'NA';
    if (i % 2 === 0) record['map_type'] = 'Z map';
    return JSON.stringify(record);
  });
}

/** How the second snapshot differs from the first, and what both are written as. */
export interface SnapshotChanges {
  /** Records of the fixture edited; default 6. */
  edits?: number;
  /** Records deleted; default 5. */
  deletes?: number;
  /** Records inserted; default 8. */
  inserts?: number;
  /** `--to`; default `parquet,arrow,csv`. */
  to?: string;
  /** The second service's faults (a scan order that moves, say, for a run that reconciles); default none. */
  faults?: FaultOptions;
  /** Runs between the two snapshots, given the first's folder; default none. */
  between?: (first: string) => Promise<void>;
}

/** Runs the two snapshots into `base` with `records` generated records beside the real ones. */
export async function makeReportSnapshots(
  base: string,
  records: number,
  changes: SnapshotChanges = {},
): Promise<ReportSnapshots> {
  const { edits = 6, deletes = 5, inserts = 8, to = 'parquet,arrow,csv' } = changes;
  const first = await startService({ data: fixtureLines(), records, seed: 7 });
  const port = first.port;
  // --full: the second service's edits leave the records' and collections' modify_date as they were (which NeuroVault
  // never does), so an incremental run would carry the edited records over; these tests compare two full snapshots.
  const run = async (service: RunningService) => {
    const args = ['--base-url', service.url, '--out', base, '--snapshot', '--full', '--to', to, '--quiet'];
    const result = await runCliHere(args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  };
  try {
    await run(first);
  } finally {
    await first.close();
  }
  if (changes.between !== undefined) await changes.between(await snapshotFolders(base).then((f) => f[0]!));
  // The same port: the records' links name the service's origin, and should not all change.
  const second = await startService({ data: editedLines(edits), records, seed: 7, port, faults: changes.faults });
  try {
    if (deletes > 0) second.dataset.delete(deletes, new Random(3));
    if (inserts > 0) second.dataset.insert(inserts, new Random(4));
    await run(second);
    return { base, folders: await snapshotFolders(base), served: [...second.servedRecords()] };
  } finally {
    await second.close();
  }
}

/** The snapshot folders of a `--snapshot` base folder, oldest first. */
async function snapshotFolders(base: string): Promise<string[]> {
  const names = (await readdir(base)).filter((name) => /^\d{8}T/.test(name));
  return names.sort().map((name) => join(base, name));
}
