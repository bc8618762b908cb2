/** The `img-etl report` command: the report page of a snapshot read back, never written over a snapshot's own files. */
import type { CommandIo } from '../command-io.js';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { ArgumentsCamelCase, CommandModule, InferredOptionTypes } from 'yargs';
import { DiffError } from '../../snapshot/diff-error.js';
import { FILE_NAMES } from '../../snapshot/formats.js';
import { makeFolder } from '../../load/file-system/make-folder.js';
import { UsageError } from '../usage-error.js';
import { REPORT_OPTIONS } from '../options/option-table.js';
import { checkOptions } from '../options/option-spec.js';

type ReportArgs = ArgumentsCamelCase<InferredOptionTypes<typeof REPORT_OPTIONS> & { snapshot: string }>;

/** `img-etl report SNAPSHOT [--against OLDER] [--out FILE]`: the report page of a snapshot, and its numbers as JSON. */
export function reportCommand(io: CommandIo): CommandModule<object, ReportArgs> {
  return {
    command: 'report <snapshot>',
    describe: 'Write the report page of a snapshot (report.html, one offline file) and its numbers (report.json)',
    builder: (y) =>
      y
        .positional('snapshot', {
          type: 'string',
          describe: 'A snapshot folder, a --snapshot folder or its latest, or an images.parquet/images.arrow file',
        })
        .options(REPORT_OPTIONS)
        .example(
          '$0 report snaps/latest --against snaps/20261120T031700.000Z',
          'The newest snapshot, and what changed since 20 November',
        ) as never,
    handler: (args) => runReport(args, io),
  };
}

/** Reads the snapshot (and the older one), writes the report page and its numbers, and prints what it wrote. */
async function runReport(args: ReportArgs, io: CommandIo): Promise<void> {
  checkOptions(args, REPORT_OPTIONS);
  const { out, against } = args;
  const json = extname(out) === '.html' ? `${out.slice(0, -'.html'.length)}.json` : `${out}.json`;
  for (const path of [out, json]) await refuseListedFile(path);
  const [{ reportSnapshot }, { writeReport }] = await Promise.all([
    import('../../report/report-snapshot.js'), // loaded for this command only
    import('../../report/write-report-files.js'),
  ]);
  const report = await reportSnapshot(args.snapshot, { against }).catch((error: unknown) => {
    // A path that names no snapshot is a usage error (exit 2: exitCodeOf), a file that cannot be read a failure (1).
    if (error instanceof DiffError) error.message = error.message.replace(/^diff:/, 'report:');
    throw error;
  });
  await makeFolder(dirname(out) === '' ? '.' : dirname(out), 'report');
  const files = await writeReport(report.data, report.title, out, json);
  for (const file of files) {
    io.stdout.write(`img-etl report: wrote ${file.path} (${file.bytes.toLocaleString('en-US')} bytes)\n`);
  }
  io.setExitCode(0);
}

/**
 * A usage error when an img-etl manifest beside `path` lists it, or `path` is that manifest: writing over a snapshot's
 * own file would leave its manifest's sha256 stale (`img-etl report .` in a snapshot folder, or `--out` into one), and
 * over its manifest would leave the snapshot unreadable.
 */
async function refuseListedFile(path: string): Promise<void> {
  const { readManifest } = await import('../../snapshot/read-manifest.js');
  const folder = resolve(dirname(path));
  const manifest = await readManifest(join(folder, FILE_NAMES.manifest));
  if (manifest === undefined) return;
  // The manifest lists every file but itself: written over, the snapshot could no longer be read.
  const why =
    basename(path) === FILE_NAMES.manifest
      ? `is the manifest of the snapshot ${folder}`
      : manifest.files.some((f) => f.name === basename(path))
        ? `is a file of the snapshot ${folder} (its manifest lists it)`
        : undefined;
  if (why !== undefined) throw new UsageError(`report: --out: ${path} ${why}; give another --out`);
}
