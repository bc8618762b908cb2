/** Value pools for generated collections and their owners: names, papers, journals, descriptions, people. */

/** Given names, for usernames and author lists. */
export const FIRST_NAMES: readonly string[] = [
  'Maria',
  'John',
  'Wei',
  'Anna',
  'Krzysztof',
  'Gael',
  'Daniel',
  'Sofia',
  'Yuki',
  'Ahmed',
  'Laura',
  'Tom',
  'Priya',
  'Jonas',
  'Chen',
  'Elena',
  'Pierre',
  'Hannah',
  'Luca',
  'Fatima',
  'Russell',
  'Tal',
  'Jean',
  'Ingrid',
  'Kenji',
  'Olga',
  'Marco',
  'Aisha',
  'Peter',
  'Sara',
  'Lukas',
  'Mina',
  'Diego',
  'Nora',
  'Samuel',
  'Ivana',
  'Raj',
  'Claire',
  'Bo',
  'Eva',
];

/** Family names, for usernames and author lists. */
export const LAST_NAMES: readonly string[] = [
  'Garcia',
  'Smith',
  'Zhang',
  'Kowalski',
  'Varoquaux',
  'Margulies',
  'Rossi',
  'Tanaka',
  'Hassan',
  'Martin',
  'Nguyen',
  'Patel',
  'Schmidt',
  'Li',
  'Ivanova',
  'Dubois',
  'Muller',
  'Bianchi',
  'Khan',
  'Poldrack',
  'Yarkoni',
  'Poline',
  'Berg',
  'Sato',
  'Petrova',
  'Ferrari',
  'Okafor',
  'Jensen',
  'Costa',
  'Weber',
  'Kim',
  'Lopez',
  'Novak',
  'Andersen',
  'Cohen',
  'Silva',
  'Fischer',
  'Moreau',
  'Yamamoto',
  'Horvat',
  'Larsen',
  'Wright',
  'Ozturk',
  'Santos',
  'Keller',
  'Lindqvist',
  'Park',
  'Reyes',
  'Wagner',
  'Brown',
  'Taylor',
  'Eriksson',
  'Gomez',
  'Suzuki',
  'Kaur',
  'Romano',
  'Baker',
  'Haas',
  'Dupont',
  'Vogel',
  'Sørensen',
  'Müller-Lyer',
  "O'Brien",
  'Chang',
];

/** What studies are about: the core of collection names and paper titles. */
export const TOPICS: readonly string[] = [
  'working memory load',
  'reward anticipation',
  'pain empathy',
  'face perception',
  'response inhibition',
  'language lateralization',
  'resting-state connectivity',
  'fear conditioning',
  'episodic memory retrieval',
  'cognitive control',
  'social decision making',
  'motor sequence learning',
  'visual attention',
  'emotion regulation',
  'semantic processing',
  'numerical cognition',
  'food cue reactivity',
  'auditory oddball detection',
  'self-referential thought',
  'theory of mind',
  'spatial navigation',
  'music perception',
  'moral judgement',
  'interoception',
  'reading in dyslexia',
  'speech production',
  'visual word recognition',
  'risky choice',
  'delay discounting',
  'placebo analgesia',
  'sleep deprivation',
  'mind wandering',
  'face-name learning',
  'motion perception',
  'tactile discrimination',
  'olfactory hedonics',
  'mental imagery',
  'bilingual switching',
  'error monitoring',
  'social exclusion',
];

/** Who was studied. */
export const SAMPLES: readonly string[] = [
  'healthy adults',
  'older adults',
  'children',
  'patients with schizophrenia',
  'adolescents',
  'twins',
  'musicians',
  'smokers',
  'veterans with PTSD',
  'bilinguals',
  'people with chronic pain',
  'expert meditators',
];

/** What kind of maps a collection holds. */
export const MAP_KINDS: readonly string[] = [
  'group maps',
  'single-subject maps',
  'contrasts',
  'unthresholded t-maps',
  'z-maps',
  'beta maps',
  'ROI masks',
  'meta-analysis maps',
];

/** Where studies were run. */
export const SITES: readonly string[] = [
  'Oxford',
  'Leipzig',
  'Stanford',
  'Beijing',
  'Montreal',
  'Nijmegen',
  'Cambridge',
  'Tokyo',
  'Berlin',
  'Paris',
];

/** How paper titles open. */
export const TITLE_OPENERS: readonly string[] = [
  'Neural correlates of',
  'The role of the prefrontal cortex in',
  'Distinct networks support',
  'A meta-analysis of',
  'Individual differences in',
  'Large-scale mapping of',
  'Dissociable neural systems for',
  'Developmental changes in',
  'Hippocampal contributions to',
  'Functional connectivity underlying',
  'Predicting',
  'Sex differences in',
  'Genetic and environmental influences on',
  'Multivariate decoding of',
];

/** How paper titles close; `{sample}` and `{n}` are filled in. */
export const TITLE_TAILS: readonly string[] = [
  '',
  ' in {sample}',
  ' across the lifespan',
  ': an fMRI study',
  ' in {sample}: an fMRI study',
  ': evidence from {n} participants',
  ' – a replication in {sample}',
  ' in {sample} and controls',
  ' (N={n})',
];

/** Names of collections without a paper, with `{topic}`, `{sample}`, `{kind}`, `{site}`, `{n}`, `{k}`, `{year}`. */
export const STUDY_NAMES: readonly string[] = [
  '{Topic} in {sample}: {kind}',
  '{Topic} (N={n}) – {kind}',
  '{site} {topic} study, {kind}',
  '{Topic}, {sample}, {site} {year}',
  'Study {k}: {topic} in {sample} (N={n})',
  '{Topic} with 7T fMRI (N={n})',
  'Thesis chapter {k}: {topic} in {sample}',
  'Unthresholded {kind}: {topic} in {sample}',
  'Pilot study on {topic} in {sample} ({site})',
  '{Topic} – {kind} ({year})',
];

/** A journal: its name, and how it builds a DOI and a landing page from a number unique to the collection. */
export interface Journal {
  name: string;
  doi: (n: number, year: number) => string;
  url: (doi: string, n: number) => string;
}

/** Journals whose papers collections come from. */
export const JOURNALS: readonly Journal[] = [
  {
    name: 'NeuroImage',
    doi: (n, year) => `10.1016/j.neuroimage.${year}.${String(100_000 + (n % 900_000))}`,
    url: (_, n) => `https://linkinghub.elsevier.com/retrieve/pii/S10538119${String(n).padStart(8, '0')}`,
  },
  {
    name: 'Cerebral Cortex',
    doi: (n) => `10.1093/cercor/bhz${n}`,
    url: (_, n) => `https://academic.oup.com/cercor/article/30/1/1/${5_000_000 + n}`,
  },
  {
    name: 'Human Brain Mapping',
    doi: (n) => `10.1002/hbm.${20_000 + n}`,
    url: (doi) => `https://onlinelibrary.wiley.com/doi/${doi}`,
  },
  {
    name: 'Nature Communications',
    doi: (n, year) => `10.1038/s41467-0${year % 100}-${String(n).padStart(5, '0')}-x`,
    url: (doi) => `https://www.nature.com/articles/${doi.slice(8)}`,
  },
  {
    name: 'Journal of Neuroscience',
    doi: (n, year) => `10.1523/JNEUROSCI.${n}-${String((year - 1) % 100).padStart(2, '0')}.${year}`,
    url: (doi) => `https://www.jneurosci.org/content/${doi}`,
  },
  {
    name: 'eLife',
    doi: (n) => `10.7554/eLife.${40_000 + n}`,
    url: (_, n) => `https://elifesciences.org/articles/${40_000 + n}`,
  },
];

/** Collection descriptions (null and '' occur too). */
export const COLLECTION_DESCRIPTIONS: readonly string[] = [
  'Group-level t-maps for the 2-back > 0-back contrast.\nN=45 healthy adults.',
  'Unthresholded z-maps accompanying Figure 3.',
  'Statistical maps from the paper, unthresholded.',
  'Maps of the main effects and interactions (see Table 2).',
  'Résumé : cartes statistiques non seuillées (n = 24).',
  'Images used in the meta-analysis; coordinates converted to MNI space.',
  'Single-subject beta maps, one per run.\n\nPreprocessed with fMRIPrep 20.2.0.',
];

/** `full_dataset_url` values. */
export const DATASET_URLS: readonly string[] = [
  'https://openfmri.org/dataset/ds000001',
  'http://dx.doi.org/10.15387/fcp_indi.corr.mpg1',
  'https://openneuro.org/datasets/ds000030',
  'https://openneuro.org/datasets/ds002790',
];

/** `preprint_DOI` prefixes (bioRxiv, PsyArXiv, arXiv). */
export const PREPRINT_PREFIXES: readonly ((n: number) => string)[] = [
  (n) => `10.1101/2023.05.${String(10 + (n % 20)).padStart(2, '0')}.${540_000 + n}`,
  (n) => `10.31234/osf.io/${n.toString(36).padStart(5, 'a')}`,
  (n) => `10.48550/arXiv.2301.${String(n % 100_000).padStart(5, '0')}`,
];
