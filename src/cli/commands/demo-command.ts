/**
 * The `img-etl demo` command: a first look at img-etl, two snapshots of the bundled service and what to try with them.
 */
import type { CommandIo } from '../command-io.js';
import { existsSync } from 'node:fs';
import { Writable } from 'node:stream';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ArgumentsCamelCase, CommandModule, InferredOptionTypes } from 'yargs';
import { COLUMNS } from '../../schema/columns.js';
import type { Row } from '../../schema/row.js';
import { formatTimestampMicros } from '../../schema/timestamp.js';
import { readNdjsonLines } from '../../service/records/data-records.js';
import { oneLine } from '../../text/one-line.js';
import { runSnapshotCommand } from './snapshot-command.js';
import { parseFormats } from '../options/snapshot-options.js';
import { DEMO_OPTIONS } from '../options/option-table.js';
import { checkOptions } from '../options/option-spec.js';

type DemoArgs = ArgumentsCamelCase<InferredOptionTypes<typeof DEMO_OPTIONS>>;

/** The 59 real records shipped with the repository, when they are there. */
function fixturePath(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'test', 'fixtures', 'neurovault-real-records.ndjson');
    if (existsSync(file)) return file;
  }
  return undefined;
}

/**
 * `img-etl demo`: serves the bundled service on a free loopback port, snapshots it, prints the summary and the first
 * rows, and stops the service.
 */
export function demoCommand(io: CommandIo): CommandModule<object, DemoArgs> {
  return {
    command: 'demo',
    describe:
      'Run the whole job against the bundled service (no network): a --snapshot of it into output/demo, its report ' +
      'and loaders too',
    builder: (y) => y.options(DEMO_OPTIONS),
    handler: (args) => runDemo(args, io),
  };
}

/**
 * Serves the bundled service's records, snapshots them (printing the summary and the first rows), changes a few on the
 * service and snapshots it again, incrementally, so that the two snapshots have something to compare; then says what
 * to try next with them, and stops the service.
 */
async function runDemo(args: DemoArgs, io: CommandIo): Promise<void> {
  checkOptions(args, DEMO_OPTIONS);
  const { out: outDir, rows: previewRows } = args;
  const formats = parseFormats(args.to);
  const file = fixturePath();
  const { startService } = await import('../../service/start-service.js'); // the service's code for this command only
  const service = await startService({
    data: file === undefined ? [] : readNdjsonLines(file),
    records: args.records,
    seed: 1,
  });
  try {
    io.stderr.write(
      `img-etl demo: bundled service listening on ${service.listUrl} (${service.dataset.size} records)\n`,
    );
    const options = { baseUrl: service.url, outDir, formats, concurrency: 4, previewRows, snapshot: true };
    const first = await runSnapshotCommand(options, {}, io);
    if (first.result === undefined || first.code !== 0) return io.setExitCode(first.code);
    io.stdout.write(`\nfirst ${first.result.preview.length} rows:\n${formatPreview(first.result.preview)}`);
    const edited = service.change({ kind: 'edit', collections: 3 }).records.length;
    const added = service.change({ kind: 'new-collection' }).records.length;
    // Its summary is not printed: one line says what it did.
    const unsaid = new Writable({ write: (_chunk, _encoding, done) => done() }) as NodeJS.WriteStream;
    const second = await runSnapshotCommand(options, { quiet: true }, { stdout: unsaid, stderr: io.stderr });
    if (second.result === undefined || second.code !== 0) return io.setExitCode(second.code);
    const { manifest, dataDir } = second.result;
    const run = manifest.kind === 'incremental' ? 'an incremental run: it read only what changed' : 'a full run';
    io.stdout.write(
      `\nthen ${edited} records edited and ${added} added in a new collection, and snapshotted again ` +
        `(${run}): ${dataDir}\n`,
    );
    io.stdout.write(tryNext(first.result.dataDir, dataDir, join(outDir, 'latest')));
    io.setExitCode(second.code);
  } finally {
    await service.close();
  }
}

/** What to try next with the two snapshots the demo wrote, on their paths: four lines, after a blank one. */
function tryNext(first: string, second: string, latest: string): string {
  return [
    '',
    'try next:',
    `  report  open ${join(second, 'report.html')} in a browser`,
    `  pandas  python3 -i ${join(second, 'load.py')}, then images() (DuckDB: cd there && duckdb -init load.sql)`,
    `  diff    npx img-etl diff ${first} ${latest}`,
    '  files   after npx img-etl --snapshot --out snapshots (neurovault.org): ' +
      'npx img-etl files snapshots/latest --out maps --where "collection_id = 1056"',
    '',
  ].join('\n');
}

const PREVIEW_COLUMNS = [
  'id',
  'collection_id',
  'map_type',
  'modality',
  'add_date',
  'cognitive_paradigm_cogatlas',
  'cognitive_paradigm_is_other',
  'name',
];

/** A few columns of the first rows as a plain text table. */
function formatPreview(rows: Row[]): string {
  const columns = COLUMNS.filter((c) => PREVIEW_COLUMNS.includes(c.name)).map((c) => c.name);
  const text = (v: Row[string]) => (v === null ? 'null' : typeof v === 'bigint' ? formatTimestampMicros(v) : String(v));
  const cell = (v: Row[string]) => oneLine(text(v)).slice(0, 40);
  const table = [columns, ...rows.map((r) => columns.map((c) => cell(r[c] ?? null)))];
  const widths = columns.map((_, i) => Math.max(...table.map((line) => line[i]!.length)));
  return (
    table
      .map((line) =>
        line
          .map((v, i) => v.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}
