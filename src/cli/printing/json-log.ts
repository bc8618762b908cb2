/** `--log-format json`: a run's events as one JSON object per line. */
import type { RunEvent } from '../../run/run-events.js';
import type { Reporter } from './reporter.js';
import { oneLine } from '../../text/one-line.js';
import { messageOf } from '../../text/message-of.js';

/** Severity of a log line. */
export type LogLevel = 'info' | 'warn' | 'error';

const WARNINGS = new Set<RunEvent['type']>(['retry', 'skip', 'staging', 'leftover', 'conflicts']);

/**
 * Whether an event is a warning: those above, and a collection that could not be read or a service without collections.
 */
function levelOf(event: RunEvent): LogLevel {
  if (WARNINGS.has(event.type)) return 'warn';
  if ((event.type === 'collection-read' || event.type === 'collections-end') && event.status !== 200) return 'warn';
  return 'info';
}

/**
 * `--log-format json`: every event as one JSON object on its own line (`ts`, `level`, `event`, then the event's
 * fields), the error that ends a command too; no bar, no plain text. Quiet keeps errors only. Field names are
 * snake_case, as in the manifest (`max_passes`, `delay_ms`), whatever the library's events call them.
 */
export class JsonLog implements Reporter {
  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly quiet = false,
  ) {}

  /** Writes one event as a line. */
  readonly onEvent = (event: RunEvent): void => {
    if (this.quiet) return;
    const { type, ...fields } = event;
    this.write(levelOf(event), type, fields);
  };

  /** Writes what ends the command as an `error` line (or the event given, such as `interrupted`). */
  error(message: string, event = 'error', fields: Record<string, unknown> = {}): void {
    this.write('error', event, { message, ...fields });
  }

  /** Writes an exception that ends the command, with its stable `code` and URL when it has them. */
  exception(err: unknown, exitCode: number): void {
    const fields: Record<string, unknown> = { exit_code: exitCode };
    // The command may wrap the library's error (to add a resume hint): the code and URL are on a cause.
    let e: unknown = err;
    for (let depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
      const { code, url, cause } = e as { code?: unknown; url?: unknown; cause?: unknown };
      if (typeof code === 'string') fields['code'] ??= code;
      if (typeof url === 'string') fields['url'] ??= url;
      e = cause;
    }
    this.error(oneLine(messageOf(err)), 'error', fields);
  }

  /** Nothing to clear: every line is complete. */
  finish(): void {}

  /**
   * Writes one line: `ts` (ISO 8601 UTC), `level`, `event` (the event type, such as `page`, or `error`), then `fields`
   * with their keys in snake_case.
   */
  write(level: LogLevel, event: string, fields: Record<string, unknown>): void {
    const record = { ts: new Date().toISOString(), level, event, ...(snakeCaseKeys(fields) as object) };
    this.out.write(`${JSON.stringify(record)}\n`);
  }
}

/** The value with every object key in snake_case (`maxPasses` → `max_passes`), nested objects and arrays included. */
function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (typeof value !== 'object' || value === null) return value;
  const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [snake(key), snakeCaseKeys(v)]));
}
