/** The JSON text each record of a page was served as, found in the page body when first asked for. */
import { bufferView } from '../text/buffer-view.js';
import { resultSpans, type TextSpan } from '../text/raw-json.js';

/** The JSON text each record of a page body's `results` was served as; the page is scanned on first use only. */
export class RecordTexts {
  private spans: TextSpan[] | undefined;
  private readonly bytes: Buffer;

  /** `text`: the body as Latin-1 text, when it was made already (PageBatch.bodyText). */
  constructor(
    body: Uint8Array,
    private readonly text?: string,
  ) {
    this.bytes = bufferView(body);
  }

  /** How many records the body's `results` holds. */
  get length(): number {
    return (this.spans ??= resultSpans(this.bytes, this.text)).length;
  }

  /** The text of the record at `position` of `results`, decoded from UTF-8. */
  at(position: number): string {
    const span = (this.spans ??= resultSpans(this.bytes, this.text))[position];
    if (span === undefined) throw new RangeError(`raw json: the page has no record at position ${position}`);
    return this.bytes.toString('utf8', span.start, span.end);
  }
}
