/** What the generated records of one collection share (which ids belong together: collection-layout.ts). */
import { utcMicros } from '../../text/berlin-time.js';
import {
  ANALYSIS_LEVELS,
  CONTRASTS,
  DESCRIPTIONS,
  EXTRA_KEYS,
  MAP_NAMES,
  MAP_TYPES,
  MODALITIES,
  PARADIGMS,
  TEMPLATES,
} from '../basics/generator-vocabulary.js';
import { hash32, Random } from '../basics/random.js';

/** The three kinds of image that share the list. */
export type ImageType = 'statistic_map' | 'atlas' | 'NIDM results statistic map';

/** What the records of one collection have in common. */
export type CollectionTraits = ReturnType<typeof makeCollectionTraits>;

const TRAITS_CACHE = new Map<string, CollectionTraits>();

/** The traits shared by the records of a collection (cached: pages hold runs of nearby ids). */
export function collectionTraits(seed: number, cid: number): CollectionTraits {
  const key = `${seed}:${cid}`;
  let traits = TRAITS_CACHE.get(key);
  if (traits === undefined) {
    if (TRAITS_CACHE.size >= 4096) TRAITS_CACHE.clear();
    traits = makeCollectionTraits(seed, cid);
    TRAITS_CACHE.set(key, traits);
  }
  return traits;
}

function makeCollectionTraits(seed: number, cid: number) {
  const rng = new Random(hash32(seed, cid, 0xc011));
  const kind = rng.weighted([
    ['statistic', 94],
    ['nidm', 3],
    ['atlas', 1.5],
    ['mixed', 1.5],
  ] as const);
  const extraCount = rng.chance(0.12) ? rng.int(1, 3) : 0;
  const extraKeys: string[] = [];
  while (extraKeys.length < extraCount) {
    const key = rng.pick(EXTRA_KEYS);
    if (!extraKeys.includes(key)) extraKeys.push(key);
  }
  return {
    kind,
    nameStem: rng.pick(MAP_NAMES),
    description: rng.weighted(DESCRIPTIONS),
    template: rng.weighted(TEMPLATES),
    // Old collections often have no modality recorded.
    modality: rng.chance(cid < 4_000 ? 0.3 : 0.03) ? '' : rng.weighted(MODALITIES),
    paradigm: rng.weighted(PARADIGMS),
    contrast: rng.weighted(CONTRASTS),
    mapType: rng.weighted(MAP_TYPES),
    analysisLevel: rng.weighted(ANALYSIS_LEVELS),
    subjects: rng.chance(0.5) ? null : rng.int(1, 400),
    extraKeys,
    thumbnailSuffix: rng.chance(0.3) ? '_1' : '',
    // NeuroVault names a package after its zip with `.nidm` (forms.py L1279-1289), the form its routes take.
    nidmName: `${rng.pick(['spm', 'fsl', 'afni'])}_${String(cid % 100).padStart(4, '0')}.nidm`,
    // Some collections were touched by a bulk migration on one night (as on 2018-06-30).
    bulkUpdate: rng.chance(0.35) ? utcMicros(2018, 6, 30, 4, rng.int(0, 9), rng.int(0, 59), rng.int(0, 999_999)) : null,
  };
}

/** The kind of one record of a collection. */
export function recordKind(collection: CollectionTraits, rng: Random): ImageType {
  if (collection.kind === 'atlas') return 'atlas';
  if (collection.kind === 'nidm') return 'NIDM results statistic map';
  if (collection.kind === 'mixed') return rng.chance(0.2) ? 'atlas' : 'statistic_map';
  return 'statistic_map';
}
