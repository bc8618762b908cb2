/** Makes the reporter a command's `--log-format` asks for. */
import { JsonLog } from './json-log.js';
import { Progress } from './progress.js';
import type { Reporter } from './reporter.js';
import type { OutputChoices } from '../options/snapshot-options.js';

/**
 * What a reporter is told by the command line: `logFormat` text (a bar on a terminal, plain lines otherwise) or json
 * (one object per line), default text; `quiet`, errors only; `progressIntervalMs` between plain lines (10,000); and
 * whether the run's rows pass through a pipeline's stages, which may leave some out (default false).
 */
export type ReporterOptions = Partial<Pick<OutputChoices, 'logFormat' | 'quiet' | 'progressIntervalMs'>> & {
  stages?: boolean;
};

/** The reporter a command line asks for, writing to `out` (stderr). */
export function createReporter(out: NodeJS.WriteStream, options: ReporterOptions = {}): Reporter {
  if (options.logFormat === 'json') return new JsonLog(out, options.quiet);
  return new Progress(out, options.quiet, { plainEveryMs: options.progressIntervalMs, stages: options.stages });
}
