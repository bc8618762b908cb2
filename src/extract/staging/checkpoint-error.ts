/** Why a staging folder cannot be used, as a coded error. */
import { CodedError } from '../../text/coded-error.js';

/**
 * Why a staging folder cannot be used: `LOCKED` (another run holds it), `MISMATCH` (another source or page size), or
 * `CHANGED` (a page staged was changed on disk while the run used it; a rerun fetches it again).
 */
export type CheckpointErrorCode = 'LOCKED' | 'MISMATCH' | 'CHANGED';

/** Why a staging folder cannot be used. */
export class CheckpointError extends CodedError<CheckpointErrorCode> {
  override readonly name = 'CheckpointError';
}
