/** The `img-etl diff` command: compares two snapshots by id, writes the diff files and prints a summary. */
import type { CommandIo } from '../command-io.js';
import type { ArgumentsCamelCase, CommandModule, InferredOptionTypes } from 'yargs';
import { DIFF_FORMATS, type DiffFormat } from '../../diff/diff-formats.js';
import type { DiffTotals, SnapshotDiff } from '../../diff/diff-snapshots.js';
import type { StagedDiff } from '../../diff/write-diff.js';
import type { SchemaDiff } from '../../diff/plan-columns.js';
import type { ManifestGaps } from '../../snapshot/manifest-gaps.js';
import type { SnapshotRows } from '../../snapshot/read-snapshot-rows.js';
import { makeFolder } from '../../load/file-system/make-folder.js';
import type { SinkResult } from '../../load/sink-result.js';
import { COLLECTIONS } from '../../schema/collection-columns.js';
import { IMAGES } from '../../schema/columns.js';
import type { Table } from '../../schema/table.js';
import { EXIT, exitCodeOf } from '../exit-codes.js';
import { counted, formatBytes, thousands } from '../printing/human-numbers.js';
import { interruptSignal } from '../interrupt-signal.js';
import { parseFormats } from '../options/snapshot-options.js';
import { DIFF_OPTIONS } from '../options/option-table.js';
import { checkOptions } from '../options/option-spec.js';
import { UsageError } from '../usage-error.js';
import { whySnapshotFolder } from '../../snapshot/snapshot-names.js';

type DiffArgs = ArgumentsCamelCase<InferredOptionTypes<typeof DIFF_OPTIONS> & { old: string; new: string }>;

/** Changed fields listed in the summary, most frequent first. */
const TOP_FIELDS = 10;

/** `img-etl diff OLD NEW`: compares two snapshots by id, writes diff.parquet (and diff.csv) and prints a summary. */
export function diffCommand(io: CommandIo): CommandModule<object, DiffArgs> {
  return {
    command: 'diff <old> <new>',
    describe: 'Compare two snapshots by id: added, removed and changed records with the names of the changed fields',
    builder: (y) =>
      y
        .positional('old', {
          type: 'string',
          describe:
            'The older snapshot: a folder, a --snapshot folder or its latest, or an images.parquet/images.arrow file',
        })
        .positional('new', { type: 'string', describe: 'The newer snapshot, named the same ways' })
        .options(DIFF_OPTIONS)
        .example('$0 diff snaps/20261120T020000.000Z snaps/latest', 'What changed since the snapshot of 20 November')
        .example('$0 diff old new --to parquet,csv --out diffs', 'Both files into diffs/') as never,
    handler: (args) => runDiff(args, io),
  };
}

/**
 * Opens both snapshots' tables, compares them, writes the diff files and prints the summary; closes what it opened.
 * The first SIGINT or SIGTERM stops the diff, its files unpublished (exit 130); the second exits at once.
 */
async function runDiff(args: DiffArgs, io: CommandIo): Promise<void> {
  checkOptions(args, DIFF_OPTIONS);
  const formats = parseFormats(args.to, DIFF_FORMATS, 'diff format');
  const out = args.out;
  const why = await whySnapshotFolder(out);
  if (why !== undefined) throw new UsageError(`--out: ${out} ${why}; give the diff a folder of its own`);
  const { signal, release } = interruptSignal();
  try {
    const lines = await withPairs(args, (images, collections) =>
      diffTables(args, images, collections, { out, formats, signal }),
    );
    io.stdout.write(lines.join('\n') + '\n');
    io.setExitCode(EXIT.OK);
  } catch (error) {
    if (!signal.aborted) throw error;
    io.stderr.write('img-etl: diff: interrupted; nothing was written\n');
    io.setExitCode(EXIT.INTERRUPTED);
  } finally {
    release();
  }
}

/** Runs `use` with both snapshots' images and collections (or why the collections are not compared); closes them. */
async function withPairs<T>(args: DiffArgs, use: (images: Pair, collections: Pair | string) => Promise<T>): Promise<T> {
  // Each side's `latest` followed once: its images and collections are of one snapshot, whatever a run publishes
  const { pinSnapshot } = await import('../../snapshot/resolve-snapshot-file.js');
  const [older, newer] = [await pinSnapshot(args.old), await pinSnapshot(args.new)];
  const images = await openPair(older, newer, IMAGES);
  try {
    // The collections are compared where both sides are snapshot folders that hold them.
    const collections = await openPair(older, newer, COLLECTIONS).catch((error: unknown) => {
      if (exitCodeOf(error) === EXIT.USAGE) return (error as Error).message.replace(/^diff: /, '');
      throw error;
    });
    try {
      return await use(images, collections);
    } finally {
      if (typeof collections !== 'string') await closePair(collections);
    }
  } finally {
    await closePair(images);
  }
}

/** Where and how the diff files are written, and what stops the diff. */
interface DiffOutput {
  out: string;
  formats: DiffFormat[];
  signal: AbortSignal;
}

/**
 * Writes the images' diff files into `out` and the collections' (unless `collections` says why they are not compared),
 * published together once both are whole, and returns the summary's lines.
 */
async function diffTables(args: DiffArgs, images: Pair, collections: Pair | string, output: DiffOutput) {
  // Loaded for this command only.
  const [{ diffSnapshots }, { stageDiff }, { manifestGaps }] = await Promise.all([
    import('../../diff/diff-snapshots.js'),
    import('../../diff/write-diff.js'),
    import('../../snapshot/manifest-gaps.js'),
  ]);
  const { out, formats, signal } = output;
  await makeFolder(out, 'diff');
  const staged: { pair: Pair; diff: SnapshotDiff; files: StagedDiff; gaps: Gaps }[] = [];
  const stage = async (pair: Pair, table: Table): Promise<void> => {
    const gaps: Gaps = [await manifestGaps(pair.old.path, table), await manifestGaps(pair.new.path, table)];
    const diff = diffSnapshots(pair.old, pair.new, { table, signal });
    const metadata = { 'img-etl.diff_old': pair.old.path, 'img-etl.diff_new': pair.new.path };
    const files = await stageDiff(diff, { dir: out, formats, metadata, table });
    staged.push({ pair, diff, files, gaps });
  };
  try {
    await stage(images, IMAGES);
    if (typeof collections !== 'string') await stage(collections, COLLECTIONS);
    const summaries: string[][] = [];
    for (const { pair, diff, files, gaps } of staged)
      summaries.push(tableSummary(pair, diff.totals, diff.schema, await files.commit(), gaps));
    const [lines, collectionLines] = summaries as [string[], string[] | undefined];
    lines[0] = `img-etl diff: ${args.old} -> ${args.new}: ${lines[0]}`;
    if (typeof collections === 'string') lines.push(`collections: not compared: ${collections}`);
    else lines.push(`collections: ${collectionLines![0]}`, ...collectionLines!.slice(1));
    return lines;
  } catch (error) {
    for (const { files } of staged) await files.abort();
    throw error;
  }
}

/** What each side's manifest says its table lacks (old, new). */
type Gaps = [ManifestGaps | undefined, ManifestGaps | undefined];

/** The two sides of one table. */
interface Pair {
  old: SnapshotRows;
  new: SnapshotRows;
}

/** Opens `table` in both snapshots; the first fails first, and the second's failure closes the first. */
async function openPair(oldPath: string, newPath: string, table: Table): Promise<Pair> {
  const oldRows = await open(oldPath, table);
  try {
    return { old: oldRows, new: await open(newPath, table) };
  } catch (error) {
    await oldRows.close();
    throw error;
  }
}

async function closePair(pair: Pair): Promise<void> {
  await pair.old.close();
  await pair.new.close();
}

/**
 * Opens a snapshot's table; a path that names no snapshot is a usage error (exit 2: exitCodeOf), a file that cannot be
 * read a failure (exit 1).
 */
async function open(path: string, table: Table): Promise<SnapshotRows> {
  const { readSnapshotRows } = await import('../../snapshot/read-snapshot-rows.js');
  return readSnapshotRows(path, { table });
}

/**
 * One table's part of the one-screen summary: the counts (first line), the sides, the most changed fields, schema
 * differences, the files.
 */
function tableSummary(
  pair: Pair,
  totals: DiffTotals,
  schema: SchemaDiff,
  files: SinkResult[],
  [oldGaps, newGaps]: Gaps,
): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  const { added, removed, changed, unchanged } = totals;
  const lines = [`${n(added)} added, ${n(removed)} removed, ${n(changed)} changed, ${n(unchanged)} unchanged`];
  const row = (label: string, text: string) => lines.push(`  ${label.padEnd(9)} ${text}`);
  row('old', `${pair.old.path}  ${n(totals.oldRows)} rows`);
  row('new', `${pair.new.path}  ${n(totals.newRows)} rows`);
  // Records a snapshot lacks were not removed from (or added to) the service: say so beside the counts.
  if (oldGaps !== undefined) row('old', `${gapsText(oldGaps)}: where the new snapshot has them, they read as added`);
  if (newGaps !== undefined) row('new', `${gapsText(newGaps)}: where the old snapshot has them, they read as removed`);
  if (totals.fields.size > 0) {
    const ranked = [...totals.fields].sort((a, b) => b[1] - a[1]); // stable: ties keep column order
    const shown = ranked.slice(0, TOP_FIELDS).map(([name, count]) => `${name} ${n(count)}`);
    const more = ranked.length > TOP_FIELDS ? ` (+${ranked.length - TOP_FIELDS} more)` : '';
    row('fields', shown.join(', ') + more);
  }
  if (schema.oldVersion !== schema.newVersion)
    row('schema', `version ${schema.oldVersion ?? 'unknown'} -> ${schema.newVersion ?? 'unknown'}`);
  const everyRow = 'a changed field of every record in both';
  if (schema.onlyInOld.length > 0) row('schema', `only in old: ${schema.onlyInOld.join(', ')} (${everyRow})`);
  if (schema.onlyInNew.length > 0) row('schema', `only in new: ${schema.onlyInNew.join(', ')} (${everyRow})`);
  for (const r of schema.retyped) row('schema', `${r.name} changed type ${r.old} -> ${r.new} (${everyRow})`);
  for (const file of files) row(file.format, `${file.path}  ${n(file.rows)} rows, ${formatBytes(file.bytes)}`);
  return lines;
}

/** `<manifest> gives 3 records missing (incomplete), 1 rejected`, the counts that are not 0. */
function gapsText({ manifest, missing, rejects }: ManifestGaps): string {
  const counts = [
    ...(missing > 0 ? [`${counted(missing, 'record')} missing (incomplete)`] : []),
    ...(rejects > 0 ? [`${thousands(rejects)} rejected`] : []),
  ];
  return `${manifest} gives ${counts.join(', ')}`;
}
