/**
 * The 86 study-metadata fields of NeuroVault's Collection model, in declaration order (models.py L193-781,
 * `type_of_design` … `nutbrain_odor_conditions`), each with its JSON type and the values a generated
 * collection may hold. Choice fields carry the stored value, never the label.
 */

/** How a generated collection fills one metadata field (null whenever it is left unset). */
export type MetadataField =
  | { key: string; kind: 'choice' | 'text'; values: readonly string[]; needs?: string; nutrition?: true }
  | { key: string; kind: 'int'; min: number; max: number; values?: readonly number[] }
  | {
      key: string;
      kind: 'float';
      min: number;
      max: number;
      decimals: number;
      values?: readonly number[];
      needs?: string;
    }
  | { key: string; kind: 'bool' };

const text = (key: string, values: readonly string[], needs?: string): MetadataField =>
  needs === undefined ? { key, kind: 'text', values } : { key, kind: 'text', values, needs };
const choice = (key: string, values: readonly string[], needs?: string): MetadataField =>
  needs === undefined ? { key, kind: 'choice', values } : { key, kind: 'choice', values, needs };
const nutrition = (key: string, kind: 'choice' | 'text', values: readonly string[]): MetadataField => ({
  key,
  kind,
  values,
  nutrition: true,
});
const bool = (key: string): MetadataField => ({ key, kind: 'bool' });
const int = (key: string, min: number, max: number, values?: readonly number[]): MetadataField =>
  values === undefined ? { key, kind: 'int', min, max } : { key, kind: 'int', min, max, values };
const float = (key: string, min: number, max: number, decimals = 1, needs?: string): MetadataField =>
  needs === undefined ? { key, kind: 'float', min, max, decimals } : { key, kind: 'float', min, max, decimals, needs };
const floatOf = (key: string, values: readonly number[]): MetadataField => ({
  key,
  kind: 'float',
  min: 0,
  max: 0,
  decimals: 1,
  values,
});

/** The metadata fields in model order; `needs` names the flag that must be true for the field to be filled. */
export const METADATA_FIELDS: readonly MetadataField[] = [
  choice('type_of_design', ['blocked', 'eventrelated', 'hybridblockevent', 'other']),
  int('number_of_imaging_runs', 1, 8),
  int('number_of_experimental_units', 10, 200),
  float('length_of_runs', 180, 900),
  float('length_of_blocks', 10, 40),
  text('length_of_trials', ['2', '1.5', 'variable', '4-6']),
  bool('optimization'),
  text(
    'optimization_method',
    ['genetic algorithm', 'optseq2', 'm-sequence', 'jittered ISI (exponential)'],
    'optimization',
  ),
  float('subject_age_mean', 8, 75),
  float('subject_age_min', 8, 75),
  float('subject_age_max', 8, 75),
  choice('handedness', ['right', 'left', 'both']),
  float('proportion_male_subjects', 0, 1, 2),
  text('inclusion_exclusion_criteria', [
    'right-handed, no history of neurological or psychiatric illness',
    'normal or corrected-to-normal vision',
    'laboratory members',
    'MR-compatible, no medication',
  ]),
  int('number_of_rejected_subjects', 0, 10),
  bool('group_comparison'),
  text(
    'group_description',
    ['patients with schizophrenia vs. matched healthy controls', 'adolescents vs. adults', 'smokers vs. non-smokers'],
    'group_comparison',
  ),
  text('scanner_make', ['Siemens', 'GE', 'Philips', 'Bruker']),
  text('scanner_model', ['Trio', 'Prisma', 'Skyra', 'Discovery MR750', 'Achieva']),
  floatOf('field_strength', [1.5, 3, 7]),
  text('pulse_sequence', ['gradient-echo EPI', 'T2*-weighted EPI', 'multiband EPI', 'spiral in/out']),
  text('parallel_imaging', ['GRAPPA, acceleration factor 2', 'SENSE factor 2', 'multiband factor 8', 'none']),
  float('field_of_view', 192, 240, 0),
  int('matrix_size', 64, 128, [64, 80, 96, 128]),
  float('slice_thickness', 2, 4),
  float('skip_distance', 0, 1, 2),
  text('acquisition_orientation', ['axial', 'oblique axial (AC-PC)', 'sagittal', 'coronal']),
  choice('order_of_acquisition', ['ascending', 'descending', 'interleaved']),
  float('repetition_time', 720, 3000, 0),
  float('echo_time', 25, 35),
  float('flip_angle', 52, 90, 0),
  text('software_package', ['SPM', 'FSL', 'AFNI', 'FreeSurfer', 'fMRIPrep']),
  text('software_version', ['SPM12', '8', '6.0.4', 'AFNI_18.3.03', '20.2.0']),
  text('order_of_preprocessing_operations', [
    'slice timing, realignment, coregistration, normalisation, smoothing',
    'motion correction, brain extraction, smoothing, high-pass filtering',
  ]),
  text('quality_control', [
    'visual inspection of all volumes',
    'framewise displacement < 0.5 mm',
    'MRIQC',
    'excluded runs with > 3 mm motion',
  ]),
  bool('used_b0_unwarping'),
  text('b0_unwarping_software', ['FSL topup', 'FSL FUGUE', 'SPM FieldMap toolbox'], 'used_b0_unwarping'),
  bool('used_slice_timing_correction'),
  text('slice_timing_correction_software', ['SPM', 'FSL slicetimer', 'AFNI 3dTshift'], 'used_slice_timing_correction'),
  bool('used_motion_correction'),
  text('motion_correction_software', ['FSL MCFLIRT', 'SPM Realign', 'AFNI 3dvolreg'], 'used_motion_correction'),
  text(
    'motion_correction_reference',
    ['first volume', 'mean image', 'middle volume', 'single-band reference image'],
    'used_motion_correction',
  ),
  text(
    'motion_correction_metric',
    ['least squares', 'normalized correlation', 'mutual information'],
    'used_motion_correction',
  ),
  text(
    'motion_correction_interpolation',
    ['trilinear', '4th degree B-spline', 'sinc', 'Fourier'],
    'used_motion_correction',
  ),
  bool('used_motion_susceptibiity_correction'),
  bool('used_intersubject_registration'),
  text(
    'intersubject_registration_software',
    ['FSL FNIRT', 'ANTs', 'SPM DARTEL', 'FreeSurfer'],
    'used_intersubject_registration',
  ),
  choice('intersubject_transformation_type', ['linear', 'nonlinear'], 'used_intersubject_registration'),
  text(
    'nonlinear_transform_type',
    ['DCT basis functions', 'B-spline warp field', 'SyN diffeomorphic'],
    'used_intersubject_registration',
  ),
  text('transform_similarity_metric', [
    'correlation ratio',
    'mutual information',
    'cross-correlation',
    'sum of squared differences',
  ]),
  text('interpolation_method', ['trilinear', 'sinc', '4th degree B-spline', 'nearest neighbour']),
  text('object_image_type', ['T1', 'T2', 'EPI', 'mean EPI']),
  bool('functional_coregistered_to_structural'),
  text(
    'functional_coregistration_method',
    ['FLIRT with BBR', 'SPM Coregister (normalized mutual information)', 'FreeSurfer bbregister'],
    'functional_coregistered_to_structural',
  ),
  choice('coordinate_space', ['mni', 'talairach', 'mni2tal', 'other']),
  text('target_template_image', ['MNI152', 'ICBM452', 'MNI152NLin2009cAsym', 'avg152T1']),
  floatOf('target_resolution', [1, 2, 3]),
  bool('used_smoothing'),
  text('smoothing_type', ['Gaussian', 'isotropic Gaussian kernel', 'surface-based'], 'used_smoothing'),
  float('smoothing_fwhm', 4, 8, 1, 'used_smoothing'),
  floatOf('resampled_voxel_size', [1, 2, 3]),
  text('intrasubject_model_type', ['regression', 'GLM', 'general linear model']),
  text('intrasubject_estimation_type', ['OLS', 'generalized least squares', 'ReML', 'FILM prewhitening']),
  text('intrasubject_modeling_software', ['SPM', 'FSL FEAT', 'AFNI 3dDeconvolve']),
  text('hemodynamic_response_function', ['canonical double-gamma', 'SPM canonical HRF', 'gamma', 'FIR']),
  bool('used_temporal_derivatives'),
  bool('used_dispersion_derivatives'),
  bool('used_motion_regressors'),
  bool('used_reaction_time_regressor'),
  bool('used_orthogonalization'),
  text(
    'orthogonalization_description',
    [
      'RT regressor orthogonalised with respect to task regressors',
      'parametric modulator orthogonalised to onset regressor',
    ],
    'used_orthogonalization',
  ),
  bool('used_high_pass_filter'),
  text(
    'high_pass_filter_method',
    ['DCT, 128 s cutoff', 'Gaussian-weighted linear, 100 s', 'cosine basis set (1/128 Hz)'],
    'used_high_pass_filter',
  ),
  text('autocorrelation_model', ['AR(1)', 'none', 'FILM prewhitening', 'ARMA(1,1)']),
  text('group_model_type', ['regression', 'one-sample t-test', 'two-sample t-test', 'mixed-effects GLM']),
  text('group_estimation_type', ['OLS', 'generalized least squares', 'FLAME1', 'ReML']),
  text('group_modeling_software', ['SPM', 'FSL FLAME', 'AFNI 3dMEMA']),
  choice('group_inference_type', ['randommixedeffects', 'fixedeffects']),
  text('group_model_multilevel', [
    '3 levels: runs within subjects, subjects within groups; equal group variances assumed',
  ]),
  bool('group_repeated_measures'),
  text(
    'group_repeated_measures_method',
    ['flexible factorial with subject factor', 'non-sphericity correction (SPM)', 'compound symmetry assumed'],
    'group_repeated_measures',
  ),
  nutrition('nutbrain_hunger_state', 'choice', ['I', 'II', 'III', 'IV', 'V', 'VI']),
  nutrition('nutbrain_food_viewing_conditions', 'text', [
    'high-calorie vs. low-calorie food',
    'food vs. non-food objects',
    'sweet vs. savory',
  ]),
  nutrition('nutbrain_food_choice_type', 'text', [
    'binary choice healthy vs. unhealthy',
    'willingness-to-pay bidding',
    'liking ratings',
  ]),
  nutrition('nutbrain_taste_conditions', 'text', [
    'milkshake vs. tasteless solution',
    'sucrose vs. water',
    'salty vs. neutral',
  ]),
  nutrition('nutbrain_odor_conditions', 'text', ['chocolate odor vs. odorless air', 'food vs. non-food odor']),
];
