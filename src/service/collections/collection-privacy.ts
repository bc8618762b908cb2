/**
 * Private collections of the generator. Their images are never listed: `/api/images/<id>/` answers 404 for them,
 * `/api/images/<TOKEN>-<id>/` answers them to the holder of the collection's token and 403 to anyone else.
 */
import { hash32 } from '../basics/random.js';

/** Share of generated collections that are private. The facts give no figure; this is a guess. */
export const PRIVATE_SHARE = 0.05;

/** Whether a generated collection is private. */
export function isPrivateCollection(seed: number, cid: number): boolean {
  return hash32(seed, cid, 0x9417) / 4294967296 < PRIVATE_SHARE;
}

/** The collection's private token: 8 uppercase letters, as NeuroVault's web form makes them (`generate_url_token`). */
export function privateToken(seed: number, cid: number): string {
  let token = '';
  for (let i = 0; i < 8; i++) token += String.fromCharCode(65 + (hash32(seed, cid, 0x70c, i) % 26));
  return token;
}
