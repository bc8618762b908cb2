/** The users who own and contribute to generated collections: a few prolific depositors and many occasional ones. */
import { FIRST_NAMES, LAST_NAMES } from '../basics/collection-vocabulary.js';
import { hash32, Random } from '../basics/random.js';

/** User ids up to this are the prolific depositors. */
export const PROLIFIC_USERS = 300;
/** Occasional depositors, with ids after the prolific ones. */
const OCCASIONAL_USERS = 8_000;
/** Share of collections that belong to a prolific depositor. */
const PROLIFIC_SHARE = 0.35;

/** The id of the user who owns a generated collection. */
export function ownerOf(seed: number, cid: number): number {
  const rng = new Random(hash32(seed, cid, 0x0dd));
  // Among the prolific ones, low ids own far more than high ones.
  if (rng.chance(PROLIFIC_SHARE)) return 1 + Math.floor(PROLIFIC_USERS * rng.next() ** 3);
  return PROLIFIC_USERS + 1 + rng.int(0, OCCASIONAL_USERS - 1);
}

/**
 * A user's username, different for every id: a given name and a family name from the pools, joined by `.` or `_`,
 * with a number once the pairs run out. Characters Django refuses in usernames are dropped.
 */
export function username(id: number): string {
  const pairs = FIRST_NAMES.length * LAST_NAMES.length;
  const pair = id % pairs;
  const first = FIRST_NAMES[pair % FIRST_NAMES.length] as string;
  const last = LAST_NAMES[Math.floor(pair / FIRST_NAMES.length)] as string;
  const separator = hash32(id, 0x5e9) % 3 === 0 ? '_' : '.';
  const round = Math.floor(id / pairs);
  const name = `${first}${separator}${last}${round === 0 ? '' : String(round)}`;
  return name.toLowerCase().replace(/[^\p{L}\p{N}.@+_-]/gu, '');
}

/** The contributors of a generated collection: other users' usernames joined by ", ", or "" (most often). */
export function contributorsOf(seed: number, cid: number, owner: number): string {
  const rng = new Random(hash32(seed, cid, 0xc0b));
  if (!rng.chance(0.15)) return '';
  const names: string[] = [];
  for (let k = rng.int(1, 3); k > 0; k--) {
    const user = 1 + rng.int(0, PROLIFIC_USERS + OCCASIONAL_USERS - 1);
    const name = username(user);
    if (user !== owner && !names.includes(name)) names.push(name);
  }
  return names.join(', ');
}
