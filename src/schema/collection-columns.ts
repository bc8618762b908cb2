/**
 * The one source of truth for the collections table: the 107 keys of a `/api/collections/` record in the order
 * NeuroVault's CollectionSerializer writes them, each of the column type its JSON type calls for, then `extra`.
 * Everything the images table does with its columns (columns.ts) it does with these: the same column types, the
 * same empty-string rule, the same raw-text `extra`. Keys keep the served names: the collection's own `id` is `id`,
 * so `images.collection_id = collections.id` joins them.
 */
import { boolean } from './column-types/boolean.js';
import { category } from './column-types/category.js';
import { float64 } from './column-types/float64.js';
import { int64, nonNegativeInt64 } from './column-types/int64.js';
import { integerList } from './column-types/integer-list.js';
import { string } from './column-types/string.js';
import { timestamp } from './column-types/timestamp.js';
import type { Column } from './column-type.js';
import { extraColumn, link, record } from './columns.js';
import { defineTable, type Table } from './table.js';

/** A choice field: the stored values (not the labels), few of them. */
const choice = (name: string, values: string, doc = ''): Column =>
  record(name, category, `${doc}Stored value: ${values}; or null.`);
const text = (name: string, doc: string): Column => record(name, string, doc);
const number = (name: string, doc: string): Column => record(name, float64, doc);
const integer = (name: string, doc: string): Column => record(name, int64, doc);
const flag = (name: string, doc: string): Column => record(name, boolean, doc);

/** Every column of the collections table in output order: the real service's key order, then `extra`. */
export const COLLECTION_COLUMNS: readonly Column[] = [
  record('id', nonNegativeInt64, 'Collection identifier (`images.collection_id`); rows are in ascending id order.', {
    required: true,
  }),
  link('url', 'Absolute link to the collection (`/collections/<id>/`).'),
  link('download_url', 'Absolute link to the zip of the collection (`/collections/<id>/download`).'),
  integer('owner', 'User id of the owner.'),
  text('contributors', 'Usernames of the contributors joined by ", "; null when there are none (served as "").'),
  text('owner_name', 'Username of the owner.'),
  integer('number_of_images', 'Items as NeuroVault counts them: maps, atlases, NIDM results maps and packages.'),
  text('name', 'Name of the collection, often the paper title.'),
  choice('publication_status', '"published", "submitted", "in_preparation", "not_intended"', 'Publication status. '),
  record('DOI', string, 'DOI of the paper, e.g. "10.3389/fninf.2015.00008"; null when none.', { dictionary: false }),
  record('preprint_DOI', string, 'DOI of the preprint; null when none.', { dictionary: false }),
  text('authors', 'Authors of the paper, e.g. "Jane Doe and John Smith".'),
  link('paper_url', 'Link to the paper.'),
  record('journal_name', category, 'Journal of the paper, e.g. "NeuroImage".'),
  text('description', 'Free text; null when empty.'),
  text('full_dataset_url', 'Link to the full dataset, e.g. on OpenNeuro.'),
  flag('private', 'Whether the collection is private (false in the public list).'),
  record('add_date', timestamp, 'Creation instant in UTC, microseconds kept (served in Europe/Berlin offsets).'),
  record('modify_date', timestamp, 'Last modification instant in UTC; saving or deleting any item bumps it.'),
  record('doi_add_date', timestamp, 'When the DOI was added, in UTC; null without a DOI.'),
  choice('type_of_design', '"blocked", "eventrelated", "hybridblockevent", "other"', 'Design type. '),
  integer('number_of_imaging_runs', 'Number of imaging runs acquired.'),
  integer('number_of_experimental_units', 'Number of blocks, trials or experimental units per run.'),
  number('length_of_runs', 'Length of each imaging run in seconds.'),
  number('length_of_blocks', 'Length of each block in seconds (blocked designs).'),
  text('length_of_trials', 'Length of each trial in seconds, or "variable".'),
  flag('optimization', 'Whether the design was optimised for efficiency.'),
  text('optimization_method', 'How the design was optimised.'),
  number('subject_age_mean', 'Mean age of the subjects in years.'),
  number('subject_age_min', 'Youngest subject, in years.'),
  number('subject_age_max', 'Oldest subject, in years.'),
  choice('handedness', '"right", "left", "both"', 'Handedness of the subjects. '),
  number('proportion_male_subjects', 'Proportion of male subjects, from 0 to 1.'),
  text('inclusion_exclusion_criteria', 'Inclusion and exclusion criteria.'),
  integer('number_of_rejected_subjects', 'Subjects scanned but rejected from the analysis.'),
  flag('group_comparison', 'Whether the study compares groups.'),
  text('group_description', 'The groups compared.'),
  text('scanner_make', 'Scanner manufacturer, e.g. "Siemens".'),
  text('scanner_model', 'Scanner model, e.g. "Prisma".'),
  number('field_strength', 'Field strength in tesla.'),
  text('pulse_sequence', 'Pulse sequence, e.g. "gradient-echo EPI".'),
  text('parallel_imaging', 'Parallel imaging method and acceleration.'),
  number('field_of_view', 'Field of view in mm.'),
  integer('matrix_size', 'Matrix size of the acquisition.'),
  number('slice_thickness', 'Slice thickness in mm.'),
  number('skip_distance', 'Gap between slices in mm.'),
  text('acquisition_orientation', 'Orientation of the slices, e.g. "axial".'),
  choice('order_of_acquisition', '"ascending", "descending", "interleaved"', 'Slice order. '),
  number('repetition_time', 'Repetition time (TR) in milliseconds.'),
  number('echo_time', 'Echo time (TE) in milliseconds.'),
  number('flip_angle', 'Flip angle in degrees.'),
  text('software_package', 'Analysis software, e.g. "SPM".'),
  text('software_version', 'Version of the analysis software.'),
  text('order_of_preprocessing_operations', 'Preprocessing steps in order.'),
  text('quality_control', 'Quality control performed.'),
  flag('used_b0_unwarping', 'Whether B0 distortion correction was used.'),
  text('b0_unwarping_software', 'Software used for B0 distortion correction.'),
  flag('used_slice_timing_correction', 'Whether slice timing correction was used.'),
  text('slice_timing_correction_software', 'Software used for slice timing correction.'),
  flag('used_motion_correction', 'Whether motion correction was used.'),
  text('motion_correction_software', 'Software used for motion correction.'),
  text('motion_correction_reference', 'Reference image of the motion correction.'),
  text('motion_correction_metric', 'Similarity metric of the motion correction.'),
  text('motion_correction_interpolation', 'Interpolation of the motion correction.'),
  flag('used_motion_susceptibiity_correction', 'Whether motion-susceptibility correction was used (key spelt so).'),
  flag('used_intersubject_registration', 'Whether the subjects were registered to a common space.'),
  text('intersubject_registration_software', 'Software used for the intersubject registration.'),
  choice('intersubject_transformation_type', '"linear", "nonlinear"', 'Intersubject transformation. '),
  text('nonlinear_transform_type', 'Type of the nonlinear transform.'),
  text('transform_similarity_metric', 'Similarity metric of the registration.'),
  text('interpolation_method', 'Interpolation used to resample to the template.'),
  text('object_image_type', 'Image registered to the template, e.g. "T1".'),
  flag('functional_coregistered_to_structural', 'Whether the functional data were coregistered to a structural image.'),
  text('functional_coregistration_method', 'Method of the functional-structural coregistration.'),
  choice('coordinate_space', '"mni", "talairach", "mni2tal", "other"', 'Coordinate space. '),
  text('target_template_image', 'Target template of the registration, e.g. "MNI152".'),
  number('target_resolution', 'Voxel size of the target template in mm.'),
  flag('used_smoothing', 'Whether the data were smoothed.'),
  text('smoothing_type', 'Type of the smoothing, e.g. "Gaussian".'),
  number('smoothing_fwhm', 'Smoothing kernel FWHM in mm.'),
  number('resampled_voxel_size', 'Voxel size after resampling, in mm.'),
  text('intrasubject_model_type', 'Model of the first-level analysis, e.g. "GLM".'),
  text('intrasubject_estimation_type', 'Estimation of the first-level model, e.g. "OLS".'),
  text('intrasubject_modeling_software', 'Software of the first-level analysis.'),
  text('hemodynamic_response_function', 'Hemodynamic response function, e.g. "canonical double-gamma".'),
  flag('used_temporal_derivatives', 'Whether temporal derivatives were modelled.'),
  flag('used_dispersion_derivatives', 'Whether dispersion derivatives were modelled.'),
  flag('used_motion_regressors', 'Whether motion regressors were included.'),
  flag('used_reaction_time_regressor', 'Whether a reaction-time regressor was included.'),
  flag('used_orthogonalization', 'Whether regressors were orthogonalised.'),
  text('orthogonalization_description', 'Which regressors were orthogonalised, and to what.'),
  flag('used_high_pass_filter', 'Whether a high-pass filter was applied.'),
  text('high_pass_filter_method', 'High-pass filter method and cutoff.'),
  text('autocorrelation_model', 'Autocorrelation model, e.g. "AR(1)", or "none".'),
  text('group_model_type', 'Model of the group analysis, e.g. "one-sample t-test".'),
  text('group_estimation_type', 'Estimation of the group model, e.g. "FLAME1".'),
  text('group_modeling_software', 'Software of the group analysis.'),
  choice('group_inference_type', '"randommixedeffects", "fixedeffects"', 'Group inference. '),
  text('group_model_multilevel', 'How the levels of a multilevel model were handled.'),
  flag('group_repeated_measures', 'Whether the group model has repeated measures.'),
  text('group_repeated_measures_method', 'How the repeated measures were modelled.'),
  choice('nutbrain_hunger_state', '"I" (fed) to "VI" (36 h fast)', 'Hunger state (nutrition studies). '),
  text('nutbrain_food_viewing_conditions', 'Food image categories shown (nutrition studies).'),
  text('nutbrain_food_choice_type', 'Food choice conditions (nutrition studies).'),
  text('nutbrain_taste_conditions', 'Taste conditions (nutrition studies).'),
  text('nutbrain_odor_conditions', 'Odor conditions (nutrition studies).'),
  record(
    'communities',
    integerList,
    'Community ids as JSON text, e.g. "[1,2]" or "[]"; in DuckDB `communities::BIGINT[]`.',
  ),
  extraColumn('JSON object of the keys the schema does not know, each value as the JSON text served, or null.'),
];

/** The collections table: `/api/collections/` records, one row per public collection. */
export const COLLECTIONS: Table = defineTable({
  name: 'collections',
  columns: COLLECTION_COLUMNS,
  schemaVersion: '1',
  // 107 columns, many of them text (descriptions, authors): small groups keep parquet-wasm's memory (which never
  // shrinks) below what the images' groups of narrower rows take (docs/performance.md, "Parquet row groups").
  parquetRowGroupRows: 2_500,
  files: {
    parquet: 'collections.parquet',
    arrow: 'collections.arrow',
    csv: 'collections.csv',
    rejects: 'collections-rejects.ndjson',
  },
  diffFiles: { parquet: 'collections-diff.parquet', csv: 'collections-diff.csv' },
  diffContext: ['name'],
});
