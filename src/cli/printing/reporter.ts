/** What every view of a run's events (text, JSON) provides to the command line. */
import type { RunEvent } from '../../run/run-events.js';

/** Renders a run's events (a snapshot's by default) and the error that ends a command; the library emits. */
export interface Reporter<E = RunEvent> {
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
