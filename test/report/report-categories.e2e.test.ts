/**
 * A snapshot whose category columns hold a distinct value in every record. The report of the
 * `--snapshot` run and `img-etl report`'s both stay small: each category chart has at most 21 marks (the 20 most
 * common values and the rest as one), and report.html is under 200 kB.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportData } from '../../src/report/report-data.js';
import { CHARTED_CATEGORIES } from '../../src/report/report-stats.js';
import { startService } from '../../src/service/index.js';
import { fixtureRecords } from '../helpers/fixture-service.js';
import { removeDir, tempDir } from '../helpers/readers.js';
import { runCliHere } from '../helpers/run-cli.js';

const RECORDS = 3000;
const LIMIT = 200_000;

let dir: string;

/** The fixture's records again and again, under new ids, each charted category column a value of its own. */
function distinctRecords(): Record<string, unknown>[] {
  const fixture = fixtureRecords();
  return Array.from({ length: RECORDS }, (_, i) => {
    const record: Record<string, unknown> = { ...fixture[i % fixture.length]!, id: i + 1 };
    for (const c of CHARTED_CATEGORIES) record[c] = `${c} ${i}`;
    return record;
  });
}

beforeAll(async () => {
  dir = await tempDir();
  const service = await startService({ data: distinctRecords(), records: 0 });
  try {
    const run = await runCliHere(['--base-url', service.url, '--out', join(dir, 'snaps'), '--snapshot', '--quiet']);
    expect([run.code, run.stderr]).toEqual([0, '']);
  } finally {
    await service.close();
  }
}, 180_000);
afterAll(async () => {
  await removeDir(dir);
});

/** The number of marks of each category chart in a page. */
function categoryMarks(html: string): number[] {
  return CHARTED_CATEGORIES.map((c) => {
    const chart = new RegExp(`<svg data-chart="counts-${c}"[^]*?</svg>`).exec(html)![0];
    return chart.match(/class="pt"/g)!.length;
  });
}

describe('a snapshot of 3,000 distinct values in each category column', () => {
  it("has a run's report.html under 200 kB, 21 marks a category chart", async () => {
    const page = join(dir, 'snaps', 'latest', 'report.html');
    expect((await stat(page)).size).toBeLessThan(LIMIT);
    expect(categoryMarks(await readFile(page, 'utf8'))).toEqual(CHARTED_CATEGORIES.map(() => 21));
    const data = JSON.parse(await readFile(join(dir, 'snaps', 'latest', 'report.json'), 'utf8')) as ReportData;
    for (const c of CHARTED_CATEGORIES) {
      expect(data.counts[c]!.reduce((a, b) => a + b.count, 0) + data.counts_other[c]!.count).toBe(RECORDS);
      expect(data.counts_other[c]!.values).toBe(RECORDS - 20);
    }
  });

  it('has img-etl report write a report.html under 200 kB', async () => {
    const out = join(dir, 'read', 'report.html');
    const run = await runCliHere(['report', join(dir, 'snaps', 'latest'), '--out', out]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect((await stat(out)).size).toBeLessThan(LIMIT);
    expect(categoryMarks(await readFile(out, 'utf8'))).toEqual(CHARTED_CATEGORIES.map(() => 21));
  });
});
