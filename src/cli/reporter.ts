import type { ExtractEvent } from '../extract/extract-events.js';
import { JsonLog } from './json-log.js';
import { Progress } from './progress.js';

/**
 * How a command shows what a run does on stderr: `text` (a bar on a terminal, plain lines otherwise) or `json` (one
 * object per line).
 */
export type LogFormat = 'text' | 'json';

/** Renders a run's events (a snapshot's by default) and the error that ends a command; the library emits. */
export interface Reporter<E = ExtractEvent> {
  /** Takes one event of the run. */
  readonly onEvent: (event: E) => void;
  /**
   * Reports what ends the command (a failure, an interruption), one line; `event` names it for machines (default
   * `error`).
   */
  error(message: string, event?: string, fields?: Record<string, unknown>): void;
  /** Stops redrawing and leaves stderr on a clean line. */
  finish(): void;
}

/** What a reporter is told by the command line. */
export interface ReporterOptions {
  /** text or json; default text. */
  logFormat?: LogFormat;
  /** Errors only; default false. */
  quiet?: boolean;
  /** Milliseconds between plain progress lines when stderr is not a terminal; default 10,000. */
  progressIntervalMs?: number;
}

/** The reporter a command line asks for, writing to `out` (stderr). */
export function createReporter(out: NodeJS.WriteStream, options: ReporterOptions = {}): Reporter {
  if (options.logFormat === 'json') return new JsonLog(out, options.quiet);
  return new Progress(out, options.quiet, { plainEveryMs: options.progressIntervalMs });
}
