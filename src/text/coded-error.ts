/**
 * The shape the stages' errors share: a plain Error with a stable machine-readable `code`, a one-line message that
 * names the path or value at fault, and the error behind it as `cause`. Each stage names its own subclass and codes.
 */
import { oneLine } from './one-line.js';

/** What a CodedError is made of. */
export interface CodedErrorOptions<Code extends string> {
  /** Stable machine-readable code. */
  code: Code;
  /** Lowercase, prefixed by the stage, naming the path or value at fault; made one line. */
  message: string;
  /** The error behind this one, when there is one. */
  cause?: unknown;
}

/** An error with a stable code and a one-line message. */
export class CodedError<Code extends string> extends Error {
  /** Stable machine-readable code. */
  readonly code: Code;

  constructor({ code, message, cause }: CodedErrorOptions<Code>) {
    super(oneLine(message), cause === undefined ? undefined : { cause });
    this.code = code;
  }

  /**
   * A refusal of this kind, the one way the stages build one: `LoadError.of('LOAD_NOT_OURS', message, cause)`. The
   * code says what was refused (the CLI alone turns it into an exit status), the message says it in one line.
   */
  static of<E extends CodedError<string>>(
    this: new (options: CodedErrorOptions<E['code']>) => E,
    code: E['code'],
    message: string,
    cause?: unknown,
  ): E {
    return new this({ code, message, cause });
  }
}
