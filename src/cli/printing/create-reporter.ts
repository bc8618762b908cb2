/** Makes the reporter a command's `--log-format` asks for. */
import { JsonLog } from './json-log.js';
import { Progress } from './progress.js';
import type { Reporter } from './reporter.js';

/**
 * How a command shows what a run does on stderr: `text` (a bar on a terminal, plain lines otherwise) or `json` (one
 * object per line).
 */
export type LogFormat = 'text' | 'json';

/** What a reporter is told by the command line. */
export interface ReporterOptions {
  /** text or json; default text. */
  logFormat?: LogFormat;
  /** Errors only; default false. */
  quiet?: boolean;
  /** Milliseconds between plain progress lines when stderr is not a terminal; default 10,000. */
  progressIntervalMs?: number;
  /** The run's rows pass through a pipeline's stages, which may leave some out; default false. */
  stages?: boolean;
}

/** The reporter a command line asks for, writing to `out` (stderr). */
export function createReporter(out: NodeJS.WriteStream, options: ReporterOptions = {}): Reporter {
  if (options.logFormat === 'json') return new JsonLog(out, options.quiet);
  return new Progress(out, options.quiet, { plainEveryMs: options.progressIntervalMs, stages: options.stages });
}
