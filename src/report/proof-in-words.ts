/**
 * What a run's completeness proof says, in words for the report page: a row per phase (the image list, the collections
 * read, the collections list, those left out). The proof itself stays as the manifest gives it, in report.json.
 */
import type { Completeness, IncrementalProof, ReconciledCollection } from '../extract/completeness/completeness.js';
import { formatNumber } from './svg-charts.js';

/** A label and what it says. */
export type FactRow = [label: string, value: string];

/** `n` and the noun for one or for many: "1 pass", "2 passes". */
export function counted(n: number, one: string, many: string): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

/** The rows saying what `proof` (a manifest's `completeness`, of any version, or null) proves; `passes` made. */
export function proofInWords(proof: unknown, passes: number): FactRow[] {
  if (proof === null || typeof proof !== 'object') return [['proof', 'not in this manifest']];
  const p = proof as Partial<Completeness>;
  if (p.method === 'passes') {
    const count = `${counted(passes, 'pass', 'passes')} over the image list, complete by its count`;
    return [['image list', p.note === undefined ? count : `${count}: ${p.note}`]];
  }
  if (p.method === 'incremental' && p.incremental !== undefined) return incrementalInWords(p, p.incremental);
  if (p.method !== 'reconciliation') return [['proof', 'in a form this report does not know: see report.json']];
  const rows: FactRow[] = [['image list', imageListWords(p)]];
  if (p.images?.proven !== true || (p.reconciliation?.collections ?? 0) > 0)
    rows.push(['collections read', collectionsReadWords(p)]);
  if (p.collections !== undefined) rows.push(['collections list', collectionsListWords(p.collections)]);
  for (const u of p.unreadable ?? []) rows.push(['left out', unreadableWords(u)]);
  const missing = p.reconciliation?.missing ?? 0;
  if (missing > 0)
    rows.push(['still missing', `${counted(missing, 'record', 'records')} the proof cannot account for`]);
  return rows;
}

/** An incremental run's proof in words: what it built on, read and carried over, and the count it was held to. */
function incrementalInWords(p: Partial<Completeness>, inc: IncrementalProof): FactRow[] {
  const missing = p.reconciliation?.missing ?? 0;
  const unserved = missing > 0 ? `, plus the ${formatNumber(missing)} missing` : '';
  const carried = `${counted(inc.carried_collections, 'collection', 'collections')} unchanged since ${inc.base}`;
  const rows: FactRow[] = [
    ['built on', `${inc.base}: only what changed since was read`],
    ['collections read', collectionsReadWords(p)],
    ['carried over', `${counted(inc.carried_records, 'row', 'rows')} of ${carried}`],
    ['image list', `counts ${formatNumber(inc.count)}: the rows held${unserved}`],
  ];
  if (p.collections !== undefined) rows.push(['collections list', collectionsListWords(p.collections)]);
  for (const u of p.unreadable ?? []) rows.push(['left out', unreadableWords(u)]);
  return rows;
}

function imageListWords(p: Partial<Completeness>): string {
  const images = p.images;
  if (images === undefined) return 'not in this proof';
  const got = `${formatNumber(images.received)} of ${formatNumber(images.expected)} records`;
  return images.proven
    ? `one pass, complete by count: ${got}, nothing repeated, the count unchanged`
    : `one pass gave ${got}: the list's order shifted while it was paged`;
}

function collectionsReadWords(p: Partial<Completeness>): string {
  const r = p.reconciliation;
  if (r === undefined) return 'not in this proof';
  const why = reasonsWords(p.reconciled ?? []);
  const read = `${counted(r.collections, 'collection', 'collections')} read in id order${why}`;
  const removed = r.removed ?? 0; // a manifest written before it was counted has none
  const gone = removed > 0 ? `, leaving out ${counted(removed, 'record', 'records')} deleted while the run paged` : '';
  return `${read}, adding ${counted(r.added, 'record', 'records')}${gone}`;
}

/** Why collections were read, counted: " (12 short, 2 changed)". */
function reasonsWords(reconciled: ReconciledCollection[]): string {
  const reasons: Record<ReconciledCollection['reason'], string> = {
    short: 'short of their count',
    changed: 'changed',
    unlisted: 'not listed after the pass',
    new: 'new',
    doubt: 'whose earlier rows were not their count',
  };
  const parts = Object.entries(reasons)
    .map(([reason, words]) => [reconciled.filter((c) => c.reason === reason).length, words] as const)
    .filter(([n]) => n > 0)
    .map(([n, words]) => `${formatNumber(n)} ${words}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

function collectionsListWords(c: Completeness['collections']): string {
  if (c.status !== 200) return `answered ${c.status}: no collections table`;
  const got = `${formatNumber(c.received)} of ${formatNumber(c.expected)} collections listed`;
  const after = c.rounds > 2 ? `before the pass and ${c.rounds - 1} times after it` : 'before and after the pass';
  return `${got}, read ${c.rounds >= 2 ? after : 'before the pass'}`;
}

function unreadableWords(u: Completeness['unreadable'][number]): string {
  const why = u.status === 403 ? 'private now' : u.status === 404 ? 'deleted' : 'unreadable';
  return `collection ${u.id} answered ${u.status} (${why}): ${counted(u.dropped, 'record', 'records')} of it left out`;
}
