/** The `img-etl run` command: a snapshot made by a named pipeline from pipelines/ or by a pipeline file. */
import type { CommandIo } from '../command-io.js';
import type { CommandModule } from 'yargs';
import { loadPipeline } from '../load-pipeline.js';
import { handleSnapshotArgs, reportingErrors, type SnapshotArgs } from './snapshot-command.js';
import { OUTPUT_OPTIONS, SNAPSHOT_OPTIONS } from '../options/option-table.js';
import { withEnvAndConfig } from '../options/config-file.js';

// `--to` defaults to the pipeline's own formats, so it has no yargs default here.
const { to: _to, ...SNAPSHOT_OPTIONS_BUT_TO } = SNAPSHOT_OPTIONS;

/**
 * `img-etl run <pipeline>`: runs a pipeline from pipelines/ (or a .js file exporting one), with every snapshot option.
 */
export function runCommand(
  io: CommandIo,
  names: readonly string[],
): CommandModule<object, SnapshotArgs & { pipeline: string }> {
  return {
    command: 'run <pipeline>',
    describe: `Run a pipeline from pipelines/ (${names.join(', ')}) or a .js file that exports one`,
    builder: (y) =>
      withEnvAndConfig(y, { ...SNAPSHOT_OPTIONS, ...OUTPUT_OPTIONS })
        .positional('pipeline', { type: 'string', describe: 'Pipeline name, or path to a .js/.mjs file' })
        .options(SNAPSHOT_OPTIONS_BUT_TO)
        .options(OUTPUT_OPTIONS)
        .option('to', {
          type: 'string',
          array: true,
          nargs: 1, // one value per --to: `run --to csv NAME` leaves the pipeline to the positional
          describe: `${SNAPSHOT_OPTIONS.to.describe} (default: the pipeline's formats)`,
        })
        .example('$0 run group-z-t-maps --out maps', 'Only group-level Z and T maps with a known paradigm')
        .example('$0 run all-formats --snapshot --keep 7', 'Parquet, Arrow and CSV in a dated folder') as never,
    handler: async (args) => {
      // a pipeline that cannot be loaded is told as the run's other errors, a JSON line with --log-format json
      let loaded: Awaited<ReturnType<typeof loadPipeline>> | undefined;
      const logFormat = args.logFormat === 'json' ? 'json' : 'text';
      await reportingErrors(logFormat, io, async () => void (loaded = await loadPipeline(args.pipeline)));
      if (loaded === undefined) return;
      const { pipeline, options } = loaded;
      const given = ((args.to as (string | null)[] | undefined) ?? []).filter(
        (v): v is string => typeof v === 'string',
      );
      const to = given.length > 0 ? given : [...(pipeline.formats ?? ['parquet'])];
      await handleSnapshotArgs({ ...args, to }, io, options);
    },
  };
}
