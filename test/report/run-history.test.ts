import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHistory, snapshotHistory } from '../../src/report/snapshot-history.js';
import { TOOL_NAME } from '../../src/snapshot/tool.js';
import { tempDir } from '../helpers/readers.js';

describe("a run's report history", () => {
  let base: string;
  /** 61 older snapshots (a manifest each), then one named after the run (a clock set back since). */
  const older = Array.from({ length: 61 }, (_, k) => `20000101T0000${String(k).padStart(2, '0')}.000Z`);
  const run = { snapshot: '20261127T090000.000Z', started_at: '2026-11-27T09:00:00.000Z', records: 99, complete: true };
  const later = '20990101T000000.000Z';

  beforeAll(async () => {
    base = await tempDir();
    for (const [k, name] of [...older, later].entries()) {
      await mkdir(join(base, name));
      const started = `2000-01-01T00:00:${k % 60}.000Z`;
      const manifest = { tool: TOOL_NAME, files: [], records_written: k, complete: true, started_at: started };
      await writeFile(join(base, name, 'manifest.json'), JSON.stringify(manifest));
    }
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  it('holds the newest 60 points, the run last, none named after it', async () => {
    const history = await runHistory(base, run);
    expect(history).toHaveLength(60);
    expect(history.map((h) => h.snapshot)).toEqual([...older.slice(-59), run.snapshot]);
    expect(history.at(-1)).toEqual(run);
  });

  it('is what `img-etl report` reads back once the run is published', async () => {
    await mkdir(join(base, run.snapshot));
    const manifest = {
      tool: TOOL_NAME,
      files: [],
      records_written: run.records,
      complete: true,
      started_at: run.started_at,
    };
    await writeFile(join(base, run.snapshot, 'manifest.json'), JSON.stringify(manifest));
    expect(await runHistory(base, run)).toEqual(await snapshotHistory(base, run.snapshot));
  });
});
