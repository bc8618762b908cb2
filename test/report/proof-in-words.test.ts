/**
 * The completeness proof in words: the report page says what the manifest's proof says, a row per phase,
 * with counts that agree in number ("1 pass", "2 collections"); the proof itself is never shown as JSON.
 */
import { describe, expect, it } from 'vitest';
import type { Completeness, ReconciledCollection } from '../../src/extract/completeness/completeness.js';
import { counted, proofInWords } from '../../src/report/proof-in-words.js';

const listed = { status: 200, expected: 425, received: 425, passes: 1, complete: true, rounds: 1 };
const reconciliation = { collections: 0, expected: 0, received: 0, added: 0, unserved: 0, missing: 0, removed: 0 };
const onePass: Completeness = {
  method: 'reconciliation',
  images: { expected: 20_000, received: 20_000, proven: true },
  collections: listed,
  reconciliation,
  reconciled: [],
  unreadable: [],
};
const read = (id: number, reason: ReconciledCollection['reason']) => ({
  ...{
    id,
    reason,
    number_of_images: 10,
    received_before: 8,
    status: 200,
    count: 10,
    received: 10,
    added: 2,
    removed: 0,
  },
});
const reconciled: Completeness = {
  ...onePass,
  images: { expected: 20_000, received: 19_883, proven: false },
  collections: { ...listed, rounds: 2 },
  reconciliation: { ...reconciliation, collections: 3, expected: 30, received: 30, added: 117 },
  reconciled: [read(4, 'short'), read(9, 'short'), read(12, 'changed')],
};

describe('the completeness proof in words', () => {
  it('says a proven pass is complete by count', () => {
    expect(proofInWords(onePass, 1)).toEqual([
      ['image list', 'one pass, complete by count: 20,000 of 20,000 records, nothing repeated, the count unchanged'],
      ['collections list', '425 of 425 collections listed, read before the pass'],
    ]);
  });

  it('says which collections were read in id order, why, and what they added', () => {
    expect(proofInWords(reconciled, 1)).toEqual([
      ['image list', "one pass gave 19,883 of 20,000 records: the list's order shifted while it was paged"],
      ['collections read', '3 collections read in id order (2 short of their count, 1 changed), adding 117 records'],
      ['collections list', '425 of 425 collections listed, read before and after the pass'],
    ]);
  });

  it('says which collections changed while a proven pass ran, and the records deleted meanwhile it left out', () => {
    const proof: Completeness = {
      ...onePass,
      collections: { ...listed, rounds: 2 },
      reconciliation: { ...reconciliation, collections: 2, expected: 20, received: 20, added: 1, removed: 3 },
      reconciled: [read(4, 'changed'), read(12, 'changed')],
    };
    expect(proofInWords(proof, 1)).toEqual([
      ['image list', 'one pass, complete by count: 20,000 of 20,000 records, nothing repeated, the count unchanged'],
      [
        'collections read',
        '2 collections read in id order (2 changed), adding 1 record, ' +
          'leaving out 3 records deleted while the run paged',
      ],
      ['collections list', '425 of 425 collections listed, read before and after the pass'],
    ]);
  });

  it('says what an incremental run built on, read and carried over, and the count it was held to', () => {
    const incremental = {
      ...{ base: '20261120T031700.000Z', carried_collections: 410, carried_records: 19_800, read_collections: 2 },
      ...{ vanished_collections: 1, count: 20_004, base_missing: 4, base_records: 20_010 },
    };
    const proof: Completeness = {
      ...onePass,
      method: 'incremental',
      incremental,
      collections: { ...listed, rounds: 2 },
      reconciliation: { ...reconciliation, collections: 3, expected: 204, received: 200, added: 200, missing: 4 },
      reconciled: [read(4, 'changed'), read(500, 'new'), read(7, 'doubt')],
    };
    expect(proofInWords(proof, 0)).toEqual([
      ['built on', '20261120T031700.000Z: only what changed since was read'],
      [
        'collections read',
        '3 collections read in id order (1 changed, 1 new, 1 whose earlier rows were not their count), ' +
          'adding 200 records',
      ],
      ['carried over', '19,800 rows of 410 collections unchanged since 20261120T031700.000Z'],
      ['image list', 'counts 20,004: the rows held, plus the 4 missing'],
      ['collections list', '425 of 425 collections listed, read before and after the pass'],
    ]);
  });

  it('names the collections left out and what is still missing', () => {
    const proof: Completeness = {
      ...reconciled,
      reconciliation: { ...reconciled.reconciliation, collections: 1, added: 1, missing: 3 },
      reconciled: [read(9, 'unlisted')],
      unreadable: [{ id: 9, status: 403, dropped: 1 }],
    };
    expect(proofInWords(proof, 1).slice(1)).toEqual([
      ['collections read', '1 collection read in id order (1 not listed after the pass), adding 1 record'],
      ['collections list', '425 of 425 collections listed, read before and after the pass'],
      ['left out', 'collection 9 answered 403 (private now): 1 record of it left out'],
      ['still missing', '3 records the proof cannot account for'],
    ]);
  });

  it('says passes over a service without collection endpoints, in the right number', () => {
    const passes: Completeness = { ...onePass, method: 'passes', note: 'GET … returned 404' };
    expect(proofInWords(passes, 1)).toEqual([
      ['image list', '1 pass over the image list, complete by its count: GET … returned 404'],
    ]);
    expect(proofInWords({ ...passes, note: undefined }, 2)[0]![1]).toBe(
      '2 passes over the image list, complete by its count',
    );
  });

  it('says when there is no proof, or one of a form it does not know, without showing it', () => {
    expect(proofInWords(null, 1)).toEqual([['proof', 'not in this manifest']]);
    expect(proofInWords({ count: 5 }, 1)).toEqual([['proof', 'in a form this report does not know: see report.json']]);
    expect([counted(1, 'pass', 'passes'), counted(0, 'pass', 'passes'), counted(1500, 'page', 'pages')]).toEqual([
      '1 pass',
      '0 passes',
      '1,500 pages',
    ]);
  });
});
