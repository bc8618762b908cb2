/** Ctrl-C and SIGTERM for a command that stops cleanly: the first aborts its work, the second exits at once. */
import { EXIT } from './exit-codes.js';

/** An AbortSignal the first SIGINT or SIGTERM aborts (the second exits with 130 at once); `release` stops listening. */
export function interruptSignal(): { signal: AbortSignal; release: () => void } {
  const aborter = new AbortController();
  const onSignal = (): void => {
    if (aborter.signal.aborted) process.exit(EXIT.INTERRUPTED);
    aborter.abort();
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  return { signal: aborter.signal, release: () => process.off('SIGINT', onSignal).off('SIGTERM', onSignal) };
}
