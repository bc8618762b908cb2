/**
 * The proof a run gives that its snapshot is complete, as the manifest writes it: what each phase expected and
 * received, the collections reconciled and what each added, and the collections that could not be read.
 */
import type { CollectionsListing } from './page-collections.js';
import type { Reconciliation } from './reconcile.js';

/**
 * A collection read through its own list, as the proof lists it: a CollectionReading (reconcile.ts) by the proof's
 * names, without its attempts and dropped records (`unreadable` gives those).
 */
export type ReconciledCollection = ReturnType<typeof reconciledOf>;

/** The completeness proof. */
export interface Completeness {
  /**
   * `reconciliation`: the collections list, one pass over the image list, the collections list again, and the own
   * list of each collection that changed (or, unless the pass proved itself complete, came up short). `passes`: the
   * service has no collection endpoints; the image list's `count`, pass after pass.
   */
  method: 'reconciliation' | 'passes' | 'incremental';
  /** The first pass over the image list: `count` at its end, distinct records, and whether it proved itself complete
   * (no record repeated, `count` unchanged, every record counted received): then no collection is read. */
  images: { expected: number; received: number; proven: boolean };
  /**
   * The collections list (as read last: after the pass when it was read again): the status it answered, public
   * collections counted and distinct ones received, passes over it, and how many times it was read (1; 2; more when
   * the reads after the pass disagreed: see collect.ts settledReads).
   */
  collections: {
    status: number;
    expected: number;
    received: number;
    passes: number;
    complete: boolean;
    rounds: number;
  };
  /** Why there is no reconciliation and no collections table, one line; absent when there is. */
  note?: string;
  /** An incremental run: what it built on, carried over and read; absent for a full one. */
  incremental?: IncrementalProof;
  /**
   * The collections read: how many, the records their counts name and their lists served, added, and not served of
   * their counts (`unserved`); `missing` is what the run still lacks, the snapshot's `missing` (see missingOf).
   */
  reconciliation: {
    collections: number;
    expected: number;
    received: number;
    added: number;
    unserved: number;
    missing: number;
    /** Records the run had that their collection's list no longer served (deleted while it paged), left out. */
    removed: number;
  };
  /** Each collection read, ascending by id. */
  reconciled: ReconciledCollection[];
  /** Collections whose list could not be read, with the status and the records left out of the snapshot. */
  unreadable: { id: number; status: number; dropped: number }[];
}

/**
 * What an incremental run proves: the earlier snapshot it built on, the collections whose rows it carried over from it
 * (unchanged since) and those it read, and the image list's `count` its rows equal (plus what the lists read did not
 * serve).
 */
export interface IncrementalProof {
  /** The snapshot folder it built on. */
  base: string;
  /** Collections carried over, and their rows. */
  carried_collections: number;
  carried_records: number;
  /** Collections read through their own lists, new or changed since the base. */
  read_collections: number;
  /** Collections of the base no longer listed: their rows are gone. */
  vanished_collections: number;
  /** Rows the base held, images and rejects: the rows read take the place of those not carried over. */
  base_records: number;
  /** The image list's `count` at the end, and the records the base's service counted but never served (looked for). */
  count: number;
  base_missing: number;
}

/** What the proof is built from. */
export interface CompletenessInput {
  /** `count` at the end of the first pass, and the distinct records it left the run with. */
  expected: number;
  received: number;
  proven: boolean;
  listing: CollectionsListing;
  reconciliation?: Reconciliation;
  /** Times the collections list was read: 1 (before the pass), 2 (and after it), more (reads after it disagreed). */
  rounds: number;
  /** Passes made over the image list. */
  passes: number;
  /** Records the run lacks (see missingOf). */
  missing: number;
  /** An incremental run's part of the proof. */
  incremental?: IncrementalProof;
}

/** Builds the proof. */
export function completenessOf(input: CompletenessInput): Completeness {
  const { listing, reconciliation } = input;
  const available = listing.status === 200;
  const readings = reconciliation?.readings ?? [];
  const read = readings.filter((r) => r.status === 200);
  return {
    method: input.incremental !== undefined ? 'incremental' : available ? 'reconciliation' : 'passes',
    images: { expected: input.expected, received: input.received, proven: input.proven },
    collections: {
      status: listing.status,
      expected: listing.expected,
      received: listing.sizes.size,
      passes: listing.passes,
      complete: available && listing.sizes.size >= listing.expected,
      rounds: input.rounds,
    },
    ...(available ? {} : { note: noCollectionsNote(listing, input.passes) }),
    ...(input.incremental === undefined ? {} : { incremental: input.incremental }),
    reconciliation: {
      collections: readings.length,
      expected: read.reduce((n, r) => n + r.count, 0),
      received: read.reduce((n, r) => n + r.received, 0),
      added: reconciliation?.added ?? 0,
      unserved: reconciliation?.unserved ?? 0,
      missing: input.missing,
      removed: reconciliation?.removed ?? 0,
    },
    reconciled: readings.map(reconciledOf),
    unreadable: readings
      .filter((r) => r.status !== 200)
      .map((r) => ({ id: r.collection, status: r.status, dropped: r.dropped })),
  };
}

/** A collection read, as the proof lists it. */
function reconciledOf(r: Reconciliation['readings'][number]) {
  return {
    id: r.collection,
    reason: r.reason,
    number_of_images: r.numberOfImages,
    received_before: r.receivedBefore,
    status: r.status,
    count: r.count,
    received: r.received,
    added: r.added,
    removed: r.removed,
  };
}

/** Why a run has no collections table and no reconciliation, one line. */
function noCollectionsNote(listing: CollectionsListing, passes: number): string {
  return `${noCollectionEndpoints(listing.url, listing.status)} (${passes} ${passes === 1 ? 'pass' : 'passes'})`;
}

/**
 * What a collections list answering `status` (a 404) means to a run, one line: the manifest's proof, the progress
 * line and `--dry-run`'s plan say it alike.
 */
export function noCollectionEndpoints(url: string, status: number): string {
  return (
    `GET ${url} returned ${status}: the service has no collection endpoints, ` +
    "so there is no collections table and completeness rests on the image list's count"
  );
}
