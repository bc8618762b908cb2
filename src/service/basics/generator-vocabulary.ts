/** Value pools the record generator draws from: the values NeuroVault is known to serve, with rough weights. */

/** Display labels of `map_type` (BaseStatisticMap.MAP_TYPE_CHOICES) with weights. */
export const MAP_TYPES: readonly (readonly [string, number])[] = [
  ['T map', 34],
  ['Z map', 26],
  ['other', 8],
  ['F map', 3],
  ['Chi squared map', 1],
  ['P map (given null hypothesis)', 4],
  ['1-P map ("inverted" probability)', 2],
  ['multivariate-beta map', 2],
  ['univariate-beta map', 5],
  ['ROI/mask', 7],
  ['parcellation', 4],
  ['anatomical', 2],
  ['variance', 2],
];

/** Display labels of `analysis_level`, null included. */
export const ANALYSIS_LEVELS: readonly (readonly [string | null, number])[] = [
  [null, 25],
  ['group', 40],
  ['single-subject', 24],
  ['meta-analysis', 8],
  ['other', 3],
];

/** `modality` values of recent records ("" occurs in old ones). */
export const MODALITIES: readonly (readonly [string, number])[] = [
  ['fMRI-BOLD', 74],
  ['Structural MRI', 6],
  ['Diffusion MRI', 4],
  ['PET other', 2],
  ['PET FDG', 1],
  ['PET [15O]-water', 1],
  ['fMRI-CBF', 1],
  ['fMRI-CBV', 1],
  ['MEG', 2],
  ['EEG', 2],
  ['Other', 6],
];

/** Template and the species it implies, with weights. */
export const TEMPLATES: readonly (readonly [readonly [string, string], number])[] = [
  [['GenericMNI', 'homo sapiens'], 58],
  [['MNI152NLin2009cAsym', 'homo sapiens'], 34],
  [['Dorr2008', 'mus musculus'], 4],
  [['NMT', 'macaca mulatta'], 4],
];

/** A Cognitive Atlas name and id pair; the sentinel rows are real rows depositors choose. */
export type CogAtlasPair = readonly [string | null, string | null];

/** Cognitive Atlas paradigms (tasks). */
export const PARADIGMS: readonly (readonly [CogAtlasPair, number])[] = [
  [['None / Other', 'None'], 48],
  [[null, null], 14],
  [['rest eyes closed', 'trm_54e69c642d89b'], 5],
  [['rest eyes open', 'trm_4c8a834779883'], 5],
  [['passive viewing', 'trm_4c899211a965c'], 4],
  [['n-back task', 'trm_4c89dbb6b7ec0'], 4],
  [['stop signal task', 'trm_4a3fd79d0b5c8'], 3],
  [['monetary incentive delay task', 'trm_4f2456027809f'], 3],
  [['Stroop task', 'trm_4a3fd79d0be4f'], 3],
  [['emotion processing fMRI task paradigm', 'trm_550b5a47aa23e'], 3],
  [['go/no-go task', 'trm_4a3fd79d0a2f8'], 3],
  [['working memory fMRI task paradigm', 'trm_550b5c1a7f4db'], 3],
  [['Iowa gambling task', 'trm_4d559bcd67c18'], 2],
];

/** Cognitive Atlas contrasts, including the "None / Other" and "Other" sentinels. */
export const CONTRASTS: readonly (readonly [CogAtlasPair, number])[] = [
  [[null, null], 62],
  [['None / Other', 'None'], 18],
  [['Other', 'Other'], 4],
  [['rest eyes open', 'cnt_54e6a3ceb7216'], 3],
  [['2-back vs 0-back', 'cnt_4e08fefbf00c5'], 4],
  [['faces vs shapes', 'cnt_550b5a8a1c0f4'], 3],
  [['stop success vs go', 'cnt_4e0906b3b4fb2'], 3],
  [['incongruent vs congruent', 'cnt_4e090fb4a3ef1'], 3],
];

/** Name stems for statistic maps. */
export const MAP_NAMES: readonly string[] = [
  'zstat1',
  'tstat2',
  'spmT_0001',
  'con_0003',
  'Faces > Shapes',
  'rest eyes closed vs open',
  'zVMHCMap sub',
  'Increased BOLD activity during reward processing',
  'cope5 group mean',
  'Kontrast Gesichter > Häuser',
  'ALE map: pain ∩ empathy',
  'β weights (2nd level)',
  'Working memory 2-back – 0-back',
  'Amygdala ROI',
  'Mapa de activación «lenguaje»',
  '脳活動マップ',
];

/** Name stems for atlases. */
export const ATLAS_NAMES: readonly string[] = [
  'Thalamus maxprob thr25 2mm',
  '333 Parcels (2mm)',
  'Harvard-Oxford cortical 1mm',
  'Schaefer 400 parcels (7 networks)',
  'Julich-Brain cytoarchitectonic maps',
];

/** Descriptions: empty, plain, and awkward text (unicode, quotes, backslashes, newlines, tabs). */
export const DESCRIPTIONS: readonly (readonly [string, number])[] = [
  ['', 30],
  ['FSL3.3', 6],
  ['spm - 3D normalized', 6],
  ['Average over 31 subjects', 5],
  [
    'Results of the meta-analysis during the processing of rewarding stimuli. ALE map ' +
      'obtained with the contrast: participants with substance addictions > control ' +
      'individuals.',
    5,
  ],
  ['Volume intersected with surface: /data/cn4/laumannt/standard_mesh_atlases/Conte', 2],
  ['Group-level "faces > houses" contrast, cluster-corrected (p < 0.05).', 4],
  ['Line one of the methods.\nLine two: smoothing 6 mm FWHM.\n\nLine four after a blank line.', 4],
  ['Windows path C:\\data\\sub-01\\zstat1.nii.gz and a tab\there', 2],
  ['Résumé: activation accrue — cortex préfrontal (n = 24) ✓', 3],
  ['Zusammenfassung: Aktivierung im Hippocampus; Größe 3×3×3 mm³', 2],
  ['内側前頭前野の賦活。被験者 20 名。', 2],
  ['Emoji in the wild 🧠🔬 and a zero-width joiner 👩‍🔬', 1],
  ["It's 'single quoted' and <b>html-looking</b> & ampersands", 2],
  ['none of the subjects were excluded', 2],
  ['null hypothesis rejected at p < 0.001', 2],
];

/** Free-text `contrast_definition` values ("" and null occur too). */
export const CONTRAST_DEFINITIONS: readonly string[] = [
  'participants with substance addictions > control individuals',
  'one-back task with objects versus zero-back task with objects',
  'faces > houses',
  'Stop success – go trials',
];

/** Keys depositors add as user-defined metadata (never one of the model's own field names). */
export const EXTRA_KEYS: readonly string[] = [
  'CIAS',
  'type',
  'scanner',
  'TR',
  'site',
  'age_group',
  'notes',
  'is_patient',
  'Ethnicity ratio',
];

/** String values for user-defined metadata. */
export const EXTRA_STRINGS: readonly string[] = [
  'IGT',
  'control',
  'Siemens Trio 3T',
  'adolescents',
  'n/a',
  'Größe',
  'yes',
  'None',
];

/** Short codes the NutBrain fields take when they are filled in. */
export const SHORT_CODES = {
  handedness: ['L', 'R'],
  sex: ['M', 'F', 'O'],
  race: ['W', 'B', 'I', 'A', 'H'],
  ethnicity: ['H', 'NH'],
  tanner_stage: ['I', 'II', 'III', 'IV', 'V'],
} as const;
