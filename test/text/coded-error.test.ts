/** A refusal is built one way: a coded error of its stage's kind, with its code, a one-line message and its cause. */
import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../../src/extract/staging/checkpoint-error.js';
import { FilesError } from '../../src/files/files-error.js';
import { DiffError } from '../../src/snapshot/diff-error.js';
import { LoadError } from '../../src/text/load-error.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { EXIT, exitCodeOf } from '../../src/cli/exit-codes.js';

describe('a refusal (CodedError.of)', () => {
  it('is an error of the stage that refused, with the code, the message on one line and the cause', () => {
    const cause = new Error('EACCES');
    const error = LoadError.of('LOAD_NOT_OURS', "load: out/images.csv\nis not img-etl's file", cause);
    expect(error).toBeInstanceOf(LoadError);
    expect(error.name).toBe('LoadError');
    expect(error.code).toBe('LOAD_NOT_OURS');
    expect(error.message).toBe("load: out/images.csv is not img-etl's file");
    expect(error.cause).toBe(cause);
  });

  it('has no cause when none is given', () => {
    expect(Object.hasOwn(DiffError.of('DIFF_NOT_FOUND', 'diff: a does not exist'), 'cause')).toBe(false);
  });

  it('keeps each stage its own kind', () => {
    expect(FilesError.of('FILES_LOCKED', 'files: x')).toBeInstanceOf(FilesError);
    expect(CheckpointError.of('LOCKED', 'staging: x')).toBeInstanceOf(CheckpointError);
    expect(DiffError.of('DIFF_NOT_FOUND', 'diff: x')).not.toBeInstanceOf(LoadError);
  });
});

describe('the exit code of an error that ends a command', () => {
  it('is 2 for a bad command line and 1 for anything else', () => {
    expect(exitCodeOf(new UsageError('--concurrency: expected a number'))).toBe(EXIT.USAGE);
    expect(EXIT.USAGE).toBe(2);
    expect(exitCodeOf(LoadError.of('LOAD_WRITE_FAILED', 'load: cannot write x'))).toBe(EXIT.FAILED);
    expect(exitCodeOf(new Error('anything'))).toBe(1);
  });
});
