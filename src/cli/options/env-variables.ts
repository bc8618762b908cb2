/**
 * The `IMG_ETL_*` variables a snapshot command reads, checked before yargs reads them: each must name one of the
 * command's options (yargs would take `IMG_ETL_TOO` for an argument `too`, and a cron job's typo would read as an
 * unknown command), and hold a value the option takes.
 */
import type { Options } from 'yargs';
import { nearestName } from '../../text/nearest-name.js';
import { UsageError } from '../usage-error.js';
import { checkGivenValue } from './strict-booleans.js';

/** The variables' prefix: `IMG_ETL_PAGE_SIZE` sets `--page-size`. */
export const ENV_PREFIX = 'IMG_ETL';

/** The variable that sets the option `name`: `page-size` → `IMG_ETL_PAGE_SIZE`. */
export function envVariable(name: string): string {
  return `${ENV_PREFIX}_${name.toUpperCase().replace(/-/g, '_')}`;
}

/** Refuses an `IMG_ETL_*` variable that names no option of `options` (nor `--config`), or holds a value it refuses. */
export function checkEnvVariables(env: NodeJS.ProcessEnv, options: Record<string, Options>): void {
  const byVariable = new Map(Object.keys(options).map((name) => [envVariable(name), name]));
  for (const [variable, value] of Object.entries(env)) {
    if (!variable.startsWith(`${ENV_PREFIX}_`) || value === undefined || variable === envVariable('config')) continue;
    const name = byVariable.get(variable);
    if (name !== undefined) {
      checkGivenValue(variable, options[name]!, value);
      continue;
    }
    const suffix = (v: string) => v.slice(ENV_PREFIX.length + 1);
    const nearest = nearestName(suffix(variable), [...byVariable.keys()].map(suffix));
    const hint = nearest === undefined ? '' : `; did you mean ${ENV_PREFIX}_${nearest}?`;
    throw new UsageError(`${variable}: no such option${hint}`);
  }
}
