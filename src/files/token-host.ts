/**
 * Where a files run may send the user's token: to a service the caller named (`baseUrl`), or to the default service.
 * A snapshot says which service it was taken from, but anyone can write that, so the host it names is not trusted
 * with the token.
 */
import { DEFAULT_BASE_URL } from '../extract/defaults.js';

/** Whether the token may go to `base`, the service files come from: `named` by the caller, or the default service. */
export function tokenGoesTo(base: string, named: boolean): boolean {
  return named || new URL(base).origin === new URL(DEFAULT_BASE_URL).origin;
}
