/** Awaiting a promise that must reject with an ExtractError. */
import { expect } from 'vitest';
import { ExtractError } from '../../src/extract/paging/extract-error.js';

/** The rejection of `promise`, which must be an ExtractError. */
export async function failure(promise: Promise<unknown>): Promise<ExtractError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExtractError);
  return error as ExtractError;
}
