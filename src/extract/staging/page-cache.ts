/**
 * A least-recently-used cache of parsed staged pages, bounded by the records it holds, for the conflict check and the
 * write's rejects; a page with unknown keys or rejects is scanned for their served text as it is read.
 */
import { attachRecordText } from '../../schema/record-text.js';
import type { Checkpoint } from './checkpoint.js';
import type { StagedPage } from './journal.js';
import { RecordTexts } from '../../schema/record-texts.js';
import { WeightedLru } from '../../text/weighted-lru.js';

/** A staged page read back: its records, and the served text of each of its rejects by position. */
export interface CachedPage {
  records: unknown[];
  texts: Map<number, string> | undefined;
}

/** Parsed staged pages, most recently used last. */
export class PageCache {
  private readonly pages: WeightedLru<CachedPage>;

  constructor(
    private readonly checkpoint: Checkpoint,
    /** Records held at most (whole pages, at least one page). */
    maxRecords = 5_000,
  ) {
    this.pages = new WeightedLru(maxRecords, (page) => page.records.length);
  }

  /** The records of a staged page (one with a file). */
  async get(page: StagedPage): Promise<CachedPage> {
    return this.pages.get(page.file!, async () => read(page, await this.checkpoint.readPage(page.file!)));
  }
}

/** A page's records, with the served text attached where it is needed. */
function read(page: StagedPage, { body, records }: { body: Buffer; records: unknown[] }): CachedPage {
  const rejects = page.ids.includes(null);
  if (page.extra.length === 0 && !rejects) return { records, texts: undefined };
  const texts = new RecordTexts(body);
  for (const position of page.extra) attachRecordText(records[position] as object, texts.at(position));
  const rejectTexts = new Map<number, string>();
  page.ids.forEach((id, position) => {
    if (id === null) rejectTexts.set(position, texts.at(position));
  });
  return { records, texts: rejectTexts };
}
