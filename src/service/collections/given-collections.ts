/**
 * Collections of given records. The 59 real records recorded from neurovault.org belong to six real
 * collections; their records here are plausible reconstructions from their images (names, owners and
 * metadata are inferred, not recorded). Any other collection of given records gets a generated profile
 * dated just before its first image.
 */
import { utcMicros } from '../../text/berlin-time.js';
import { type MetadataField, METADATA_FIELDS } from './collection-fields.js';
import { username } from './collection-owners.js';
import { type CollectionProfile, generateCollectionProfile } from './collection-profile.js';
import { jsonString, pythonFloat } from '../../text/python-json.js';

type Known = Omit<CollectionProfile, 'ownerName' | 'metadata' | 'modified' | 'nidmPackages'> & {
  metadata: Readonly<Record<string, string | number | boolean>>;
};

/** What the real collections leave unset: no paper, status, dataset URL, community or contributor unless given. */
const UNSET = {
  doi: null,
  preprintDoi: null,
  authors: null,
  paperUrl: null,
  journalName: null,
  doiAdded: null,
  publicationStatus: null,
  fullDatasetUrl: null,
  communities: [],
  contributors: '',
} as const;

const KNOWN: Readonly<Record<number, Omit<Known, keyof typeof UNSET> & Partial<Known>>> = {
  555: {
    owner: 412,
    name: 'Reward processing in substance addiction: ALE meta-analysis',
    description:
      'Activation likelihood estimation maps for the processing of rewarding stimuli: participants with substance ' +
      'addictions compared with control individuals (increased and decreased BOLD activity).',
    added: utcMicros(2015, 9, 14, 8, 31, 2, 118_211),
    metadata: {
      coordinate_space: 'mni',
      software_package: 'GingerALE',
      software_version: '2.3.2',
      group_comparison: true,
      group_description: 'participants with substance addictions vs. control individuals',
    },
  },
  1039: {
    owner: 1877,
    name: 'Voxel-mirrored homotopic connectivity in internet addiction, single-subject maps',
    description: 'VMHC z-maps per subject, resting state with eyes closed. CIAS: Chen Internet Addiction Scale score.',
    added: utcMicros(2015, 11, 30, 13, 4, 51, 640_022),
    metadata: {
      number_of_experimental_units: 52,
      scanner_make: 'Siemens',
      scanner_model: 'Trio',
      field_strength: 3,
      repetition_time: 2000,
      software_package: 'SPM',
      software_version: 'SPM8',
      used_smoothing: true,
      smoothing_fwhm: 4,
      group_comparison: true,
      group_description: 'internet addiction vs. healthy controls',
    },
  },
  1056: {
    owner: 23,
    contributors: username(57),
    name: 'Thalamic connectivity atlas (FSL)',
    description: 'Probabilistic and maximum-probability thalamic parcellations as distributed with FSL, 1 mm and 2 mm.',
    added: utcMicros(2016, 1, 21, 17, 2, 40, 5_113),
    metadata: { software_package: 'FSL', coordinate_space: 'mni', target_template_image: 'MNI152' },
  },
  1058: {
    owner: 23,
    name: 'Cortical parcellation: 333 parcels',
    description: 'Boundary-mapped parcels from resting-state functional connectivity, volumes at 1 mm and 2 mm.',
    added: utcMicros(2016, 1, 21, 17, 10, 3, 772_950),
    metadata: {},
  },
  1195: {
    owner: 2303,
    name: 'Myelin water fraction atlas (N=31)',
    description: 'Average myelin water content over 31 healthy adults.',
    added: utcMicros(2016, 2, 18, 20, 51, 19, 980_404),
    metadata: { number_of_experimental_units: 31, scanner_make: 'Philips', field_strength: 3 },
  },
  1197: {
    owner: 2303,
    name: 'Serotonin receptor PET templates',
    description: '',
    added: utcMicros(2016, 2, 18, 21, 9, 55, 301_876),
    metadata: {},
  },
};

/** The profile of a collection of given records whose first image was added at `firstAdded` (UTC microseconds). */
export function givenCollectionProfile(seed: number, cid: number, firstAdded: number): CollectionProfile {
  const given = KNOWN[cid];
  if (given !== undefined) {
    const known: Known = { ...UNSET, ...given };
    const member = (field: MetadataField): string =>
      `"${field.key}":${metadataValue(field, known.metadata[field.key])},`;
    const metadata = METADATA_FIELDS.map(member).join('');
    return { ...known, ownerName: username(known.owner), metadata, modified: known.added, nidmPackages: 0 };
  }
  const generated = generateCollectionProfile(seed, cid, 1, false);
  const added = firstAdded - 3_600_000_000;
  const doiAdded = generated.doiAdded === null ? null : added + 86_400_000_000;
  return { ...generated, added, modified: doiAdded ?? added, doiAdded, nidmPackages: 0 };
}

function metadataValue(field: MetadataField, value: string | number | boolean | undefined): string {
  if (value === undefined) return 'null';
  if (field.kind === 'float') return pythonFloat(value as number);
  return typeof value === 'string' ? jsonString(value) : String(value);
}
