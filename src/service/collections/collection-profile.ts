/**
 * What a collection record says about itself, apart from what its items decide (the number of images,
 * the last item change): owner, name, paper, description, dates and study metadata. Generated
 * collections get theirs from (seed, cid).
 */
import { formatBerlinTimestamp, utcMicros } from '../../text/berlin-time.js';
import { METADATA_FIELDS } from './collection-fields.js';
import { contributorsOf, ownerOf, PROLIFIC_USERS, username } from './collection-owners.js';
import { collectionTraits } from './collection-traits.js';
import {
  COLLECTION_DESCRIPTIONS,
  DATASET_URLS,
  FIRST_NAMES,
  JOURNALS,
  LAST_NAMES,
  MAP_KINDS,
  PREPRINT_PREFIXES,
  SAMPLES,
  SITES,
  STUDY_NAMES,
  TITLE_OPENERS,
  TITLE_TAILS,
  TOPICS,
} from '../basics/collection-vocabulary.js';
import { idTimeMicros, withMicros } from '../basics/image-times.js';
import { jsonNullableString, pythonFloat } from '../../text/python-json.js';
import { hash32, Random } from '../basics/random.js';

/** A collection's own fields, as a generated collection has them. Times are UTC microseconds. */
export type CollectionProfile = ReturnType<typeof generateCollectionProfile>;

/** `publication_status` exists since migration 0002 of 2025-02-03; the web form has asked for it since. */
const PUBLICATION_STATUS_SINCE = utcMicros(2025, 2, 3);
const PUBLICATION_STATUSES = [
  ['published', 40],
  ['submitted', 15],
  ['in_preparation', 30],
  ['not_intended', 15],
] as const;
const DAY = 86_400_000_000;

/**
 * A generated collection's name: a paper title when it has a DOI, else a study name, or for an occasional
 * depositor sometimes the temporary collection the web upload makes. Names are unique: the registry numbers repeats.
 */
export function collectionName(seed: number, cid: number): string {
  const rng = new Random(hash32(seed, cid, 0x4a3e));
  const topic = rng.pick(TOPICS);
  const owner = ownerOf(seed, cid);
  let name: string;
  if (hasDoi(seed, cid)) {
    const second = rng.pick(TOPICS);
    const and = second !== topic && rng.chance(0.5) ? ` and ${second}` : '';
    name = `${rng.pick(TITLE_OPENERS)} ${topic}${and}${rng.pick(TITLE_TAILS)}`;
  } else if (owner > PROLIFIC_USERS && rng.chance(0.08)) return `${username(owner)}'s temporary collection`;
  else name = rng.pick(STUDY_NAMES).replace('{Topic}', `${topic.charAt(0).toUpperCase()}${topic.slice(1)}`);
  return name
    .replace('{topic}', topic)
    .replace('{sample}', rng.pick(SAMPLES))
    .replace('{kind}', rng.pick(MAP_KINDS))
    .replace('{site}', rng.pick(SITES))
    .replace('{n}', String(rng.int(8, 1200)))
    .replace('{k}', String(rng.int(1, 9)))
    .replace('{year}', String(rng.int(2012, 2025)));
}

function hasDoi(seed: number, cid: number): boolean {
  return hash32(seed, cid, 0xd01) / 4294967296 < 0.35;
}

/** The profile of a generated collection whose ids start at `lo`; `isPrivate` keeps the DOI date unset. */
export function generateCollectionProfile(seed: number, cid: number, lo: number, isPrivate: boolean) {
  const rng = new Random(hash32(seed, cid, 0xc0ffee));
  const traits = collectionTraits(seed, cid);
  const owner = ownerOf(seed, cid);
  const added = withMicros(idTimeMicros(lo) - rng.int(60, 14 * 86_400) * 1_000_000, rng);
  let modified = added + Math.floor(rng.next() ** 2 * 400) * DAY + rng.int(0, 86_399_999_999);
  const recent = added >= PUBLICATION_STATUS_SINCE;
  let publicationStatus: string | null = recent || rng.chance(0.05) ? rng.weighted(PUBLICATION_STATUSES) : null;
  if (rng.chance(0.01)) publicationStatus = ''; // the API stores "" as given
  const paper = hasDoi(seed, cid) ? paperOf(rng, cid, added, isPrivate) : NO_PAPER;
  if (paper.doi !== null && publicationStatus === null && recent) publicationStatus = 'published';
  if (paper.doiAdded !== null) modified = Math.max(modified, paper.doiAdded);
  const communities: readonly number[] = rng.chance(0.03)
    ? rng.chance(0.1)
      ? [1, 2]
      : [1]
    : rng.chance(0.015)
      ? [2]
      : [];
  return {
    owner,
    ownerName: username(owner),
    /** Usernames joined by ", ", or "". */
    contributors: contributorsOf(seed, cid, owner),
    name: collectionName(seed, cid),
    publicationStatus,
    doi: paper.doi,
    preprintDoi: rng.chance(recent ? 0.2 : 0.03) ? rng.pick(PREPRINT_PREFIXES)(cid) : null,
    authors: paper.authors,
    paperUrl: paper.paperUrl,
    journalName: paper.journalName,
    description: describe(rng, traits.description),
    fullDatasetUrl: rng.chance(0.08) ? rng.pick(DATASET_URLS) : null,
    added,
    /** Its own last save, not counting its items'. */
    modified,
    doiAdded: paper.doiAdded,
    /** The 86 metadata fields as JSON members in model order, each followed by a comma. */
    metadata: metadataMembers(rng, communities),
    /** Community ids: 1 developmental, 2 nutrition. */
    communities,
    /** NIDM Results packages: items counted by `number_of_images` that `/images/` does not list. */
    nidmPackages: traits.kind === 'nidm' ? 1 : 0,
  };
}

/** A collection's paper fields: all null without a DOI; `doiAdded` also null for a private collection. */
interface Paper {
  doi: string | null;
  authors: string | null;
  paperUrl: string | null;
  journalName: string | null;
  doiAdded: number | null;
}

const NO_PAPER: Paper = { doi: null, authors: null, paperUrl: null, journalName: null, doiAdded: null };

/** The paper of a collection with a DOI, drawn from `rng` after the collection's dates and status. */
function paperOf(rng: Random, cid: number, added: number, isPrivate: boolean): Paper {
  const journal = rng.pick(JOURNALS);
  const year = new Date(added / 1000).getUTCFullYear() + rng.int(0, 1);
  const doi = journal.doi(cid, year);
  const paperUrl = journal.url(doi, cid);
  const authors = authorList(rng);
  const doiAdded = isPrivate ? null : withMicros(added + rng.int(0, 200) * DAY + rng.int(0, 86_399) * 1_000_000, rng);
  return { doi, authors, paperUrl, journalName: journal.name, doiAdded };
}

/** The age fields, in the order `ageRange` gives them. */
const AGE_FIELDS = ['subject_age_min', 'subject_age_mean', 'subject_age_max'];

/** The JSON members of the 86 metadata fields for a collection that fills in some of them. */
export function metadataMembers(rng: Random, communities: readonly number[]): string {
  const level = rng.next();
  // Most collections leave the study metadata empty; a few fill much of it.
  const share = level < 0.7 ? 0 : level < 0.92 ? 0.15 : 0.65;
  const nutrition = communities.includes(2);
  const developmental = communities.includes(1);
  const ages = developmental ? ageRange(rng, 8, 18) : ageRange(rng, 18, 75);
  const values = new Map<string, string>();
  let out = '';
  for (const field of METADATA_FIELDS) {
    let value = 'null';
    const needs = 'needs' in field ? field.needs : undefined;
    const age = AGE_FIELDS.indexOf(field.key);
    const picked = 'nutrition' in field ? nutrition && rng.chance(0.8) : rng.chance(share);
    const wanted = picked || (developmental && age !== -1);
    if (wanted && (needs === undefined || values.get(needs) === 'true')) {
      if (field.kind === 'bool') value = rng.chance(0.75) ? 'true' : 'false';
      else if (field.kind === 'int') {
        value = String(field.values ? rng.pick(field.values) : rng.int(field.min, field.max));
      } else if (field.kind === 'float') {
        const { min, max } = field;
        const drawn = (): number => (field.values ? rng.pick(field.values) : min + rng.next() * (max - min));
        const raw = age === -1 ? drawn() : (ages[age] as number);
        value = pythonFloat(Number(raw.toFixed(field.decimals)));
      } else value = rng.chance(0.01) ? '""' : jsonNullableString(rng.pick(field.values));
    }
    values.set(field.key, value);
    out += `"${field.key}":${value},`;
  }
  return out;
}

/** The profile's fields as they appear in the record, from `name` to `doi_add_date`, `private` given. */
export function profileMembers(profile: CollectionProfile, isPrivate: boolean, modified: number): string {
  return (
    `"name":${jsonNullableString(profile.name)},` +
    `"publication_status":${jsonNullableString(profile.publicationStatus)},` +
    `"DOI":${jsonNullableString(profile.doi)},"preprint_DOI":${jsonNullableString(profile.preprintDoi)},` +
    `"authors":${jsonNullableString(profile.authors)},"paper_url":${jsonNullableString(profile.paperUrl)},` +
    `"journal_name":${jsonNullableString(profile.journalName)},` +
    `"description":${jsonNullableString(profile.description)},` +
    `"full_dataset_url":${jsonNullableString(profile.fullDatasetUrl)},"private":${isPrivate},` +
    `"add_date":"${formatBerlinTimestamp(profile.added)}","modify_date":"${formatBerlinTimestamp(modified)}",` +
    `"doi_add_date":${profile.doiAdded === null ? 'null' : `"${formatBerlinTimestamp(profile.doiAdded)}"`},`
  );
}

/** A description: none, empty, one of the collection descriptions, or what its images say. */
function describe(rng: Random, imagesSay: string): string | null {
  if (rng.chance(0.35)) return null;
  if (rng.chance(0.25)) return '';
  return rng.chance(0.7) ? rng.pick(COLLECTION_DESCRIPTIONS) : imagesSay;
}

function authorList(rng: Random): string {
  const names: string[] = [];
  for (let k = rng.int(1, 6); k > 0; k--) names.push(`${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`);
  return names.length === 1 ? (names[0] as string) : `${names.slice(0, -1).join(', ')} and ${names.at(-1) as string}`;
}

/** Youngest, mean and oldest age of a sample, with min ≤ mean ≤ max. */
function ageRange(rng: Random, youngest: number, oldest: number): [number, number, number] {
  const a = youngest + rng.next() * (oldest - youngest);
  const b = youngest + rng.next() * (oldest - youngest);
  const [min, max] = a < b ? [a, b] : [b, a];
  return [min, min + rng.next() * (max - min), max];
}
