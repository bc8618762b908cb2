/**
 * `img-etl files --log-format json`: the files run as JSON lines like a snapshot's (json-log.ts): a `plan` line once
 * the selection is known, a `file` line per file settled (a warning unless ok) and one per retry.
 */
import type { FilesEvent } from '../../files/files-events.js';
import { JsonLog } from './json-log.js';
import type { Reporter } from './reporter.js';

/** Renders a files run's events as JSON lines; quiet keeps the line that ends the command only. */
export class FilesJsonLog implements Reporter<FilesEvent> {
  private readonly log: JsonLog;

  constructor(
    out: NodeJS.WritableStream,
    private readonly quiet = false,
  ) {
    this.log = new JsonLog(out, quiet);
  }

  /** Writes one event as a line (`bytes` events are not written). */
  readonly onEvent = (event: FilesEvent): void => {
    if (this.quiet) return;
    switch (event.type) {
      case 'plan':
        this.log.write('info', 'plan', { files: event.files, bytes: event.bytes });
        return;
      case 'file': {
        const { mtime_ns: _mtime, ...row } = event.row; // bookkeeping for the next run (and a bigint JSON refuses)
        this.log.write(row.status === 'ok' ? 'info' : 'warn', 'file', { ...row, fetched: event.fetched });
        return;
      }
      case 'lock':
      case 'unmatched':
      case 'notice':
      case 'retry': {
        const { type, ...fields } = event;
        this.log.write('warn', type, fields);
        return;
      }
      case 'token-withheld':
        this.log.write('warn', 'token_withheld', { baseUrl: event.baseUrl });
        return;
    }
  };

  /** Writes what ends the command as an `error` line (or the event given, such as `interrupted`). */
  error(message: string, event = 'error', fields: Record<string, unknown> = {}): void {
    this.log.error(message, event, fields);
  }

  /** Nothing to clear: every line is complete. */
  finish(): void {}
}
