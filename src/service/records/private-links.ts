/**
 * The links of an image in a private collection, as NeuroVault writes them: `Image.get_absolute_url` names it
 * `/collections/<token>/images/<id>/`, `Collection.get_absolute_url` names the collection (and an NIDM map's results)
 * by token, and the media storage's `url()` puts the token in place of the collection id (models.py L789-796,
 * L1151-1161; storage.py `NeuroVaultStorage.url`). `collection_id` stays the number.
 */

/** The record's JSON text with the links of collection `cid` (served from `origin`) rewritten to its token. */
export function privateLinks(json: string, origin: string, id: number, cid: number, token: string): string {
  return json
    .replace(`"url":"${origin}/images/${id}/"`, `"url":"${origin}/collections/${token}/images/${id}/"`)
    .replaceAll(`"${origin}/collections/${cid}/`, `"${origin}/collections/${token}/`)
    .replaceAll(`"${origin}/media/images/${cid}/`, `"${origin}/media/images/${token}/`);
}
