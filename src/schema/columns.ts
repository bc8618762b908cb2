/**
 * The one source of truth for the output table: every column, its type and its meaning.
 * The zod record schema, the Arrow schema, the CSV header and the README's schema table
 * are all derived from this list; nothing else names a column's type.
 */

/** The logical type of an output column. */
export type ColumnKind =
  | 'int64' // Arrow Int64, Parquet INT64, pandas Int64
  | 'float64' // Arrow Float64, Parquet DOUBLE
  | 'boolean' // Arrow Bool, Parquet BOOLEAN
  | 'timestamp' // Arrow Timestamp(MICROSECOND, "UTC"), Parquet TIMESTAMP(MICROS, UTC)
  | 'string' // Arrow Utf8, Parquet BYTE_ARRAY (UTF8)
  | 'category' // dictionary-encoded string: Arrow Dictionary<Int32, Utf8>
  | 'json'; // a JSON text (Utf8) holding what the schema does not know

/** Where a column's value comes from. */
export type ColumnOrigin =
  | 'record' // a key of the served record, validated and normalised
  | 'derived'; // computed by normalisation from other keys

/** One output column. */
export interface Column {
  /** Column name, identical to the record key for `record` columns. */
  readonly name: string;
  /** Logical type. */
  readonly kind: ColumnKind;
  /** Where the value comes from. */
  readonly origin: ColumnOrigin;
  /** One line for the README's schema table. */
  readonly doc: string;
}

const record = (name: string, kind: ColumnKind, doc: string): Column => ({ name, kind, origin: 'record', doc });
const derived = (name: string, kind: ColumnKind, doc: string): Column => ({ name, kind, origin: 'derived', doc });

/** Every output column, in output order: the real service's key order, then type-specific keys, then derived columns. */
export const COLUMNS: readonly Column[] = [
  record('url', 'string', 'Absolute link to the record (`/images/<id>/`).'),
  record('id', 'int64', 'Record identifier; unique in a snapshot, rows are in ascending id order.'),
  record('file', 'string', 'Absolute link to the image file.'),
  record('collection', 'string', 'Absolute link to the owning collection.'),
  record('collection_id', 'int64', 'Identifier of the owning collection.'),
  record('file_size', 'int64', 'Size of the image file in bytes; 0 when the file is missing on the server.'),
  record('cognitive_paradigm_cogatlas', 'category', 'Cognitive Atlas paradigm name; null for blank and for "None / Other" (see cognitive_paradigm_is_other).'),
  record('cognitive_paradigm_cogatlas_id', 'category', 'Cognitive Atlas paradigm id (`trm_…`); null for blank and for the sentinel "None".'),
  record('cognitive_contrast_cogatlas', 'category', 'Cognitive Atlas contrast name; null for blank and for "None / Other" (see cognitive_contrast_is_other).'),
  record('cognitive_contrast_cogatlas_id', 'category', 'Cognitive Atlas contrast id (`cnt_…`); null for blank and for the sentinel "None".'),
  record('map_type', 'category', 'Kind of map: "T map", "Z map", "P map (given null hypothesis)", "ROI/mask", "parcellation", …; null for atlases.'),
  record('analysis_level', 'category', 'Analysis level: "single-subject", "group", "meta-analysis", "other" or null.'),
  record('name', 'string', 'Display name of the image.'),
  record('description', 'string', 'Free text; null when empty.'),
  record('add_date', 'timestamp', 'Creation instant in UTC, microseconds kept (served in Europe/Berlin offsets).'),
  record('modify_date', 'timestamp', 'Last modification instant in UTC, microseconds kept.'),
  record('is_valid', 'boolean', 'Validity flag of the record.'),
  record('surface_left_file', 'string', 'Absolute link to the left-hemisphere surface file, or null.'),
  record('surface_right_file', 'string', 'Absolute link to the right-hemisphere surface file, or null.'),
  record('data_origin', 'category', 'Origin of the data: "volume" or "surface".'),
  record('target_template_image', 'category', 'Reference template, e.g. "GenericMNI", "MNI152NLin2009cAsym", "Dorr2008".'),
  record('subject_species', 'category', 'Species, e.g. "homo sapiens", "mus musculus".'),
  record('figure', 'string', 'Figure of the paper the map belongs to; null when empty.'),
  record('handedness', 'category', 'Handedness code (L/R).'),
  record('age', 'float64', 'Age of the subjects.'),
  record('sex', 'category', 'Sex code (M/F/O).'),
  record('race', 'category', 'Race code.'),
  record('ethnicity', 'category', 'Ethnicity code.'),
  record('BMI', 'float64', 'Body mass index.'),
  record('fat_percentage', 'float64', 'Body fat percentage.'),
  record('waist_hip_ratio', 'float64', 'Waist-to-hip ratio.'),
  record('mean_PDS_score', 'float64', 'Mean pubertal development scale score.'),
  record('tanner_stage', 'category', 'Tanner stage (I–V).'),
  record('days_since_menstruation', 'float64', 'Days since menstruation.'),
  record('hours_since_last_meal', 'float64', 'Hours since the last meal.'),
  record('bis_bas_score', 'float64', 'BIS/BAS score.'),
  record('spsrq_score', 'float64', 'SPSRQ score.'),
  record('bis11_score', 'float64', 'BIS-11 score.'),
  record('thumbnail', 'string', 'Absolute link to the glass-brain preview picture, or null.'),
  record('reduced_representation', 'string', 'Absolute link to the reduced representation file, or null.'),
  record('is_thresholded', 'boolean', 'Whether the map is thresholded; null for atlases.'),
  record('perc_bad_voxels', 'float64', 'Percentage of bad voxels.'),
  record('not_mni', 'boolean', 'Whether the image is not in MNI space; null for atlases.'),
  record('brain_coverage', 'float64', 'Percentage of the brain covered (0–100).'),
  record('perc_voxels_outside', 'float64', 'Percentage of voxels outside the brain mask (0–100).'),
  record('number_of_subjects', 'int64', 'Number of subjects behind the map.'),
  record('modality', 'category', 'Imaging modality, e.g. "fMRI-BOLD"; null when empty (old records).'),
  record('statistic_parameters', 'float64', 'Statistic parameters (degrees of freedom).'),
  record('smoothness_fwhm', 'float64', 'Smoothness FWHM in mm.'),
  record('contrast_definition', 'string', 'Contrast definition; null when empty.'),
  record('contrast_definition_cogatlas', 'string', 'Contrast definition from Cognitive Atlas; null when empty.'),
  record('cognitive_paradigm_description_url', 'string', 'Link to the paradigm description; null when empty.'),
  record('cognitive_paradigm_short_description', 'string', 'Short paradigm description.'),
  record('cognitive_paradigm_name', 'string', 'Paradigm name.'),
  record('image_type', 'category', 'Record type: "statistic_map", "atlas" or "NIDM results statistic map".'),
  record('label_description_file', 'string', 'Atlases only: link to the label description file.'),
  record('nidm_results', 'string', 'NIDM results maps only: link to the NIDM results.'),
  record('nidm_results_ttl', 'string', 'NIDM results maps only: link to the NIDM results Turtle file.'),
  derived('cognitive_paradigm_is_other', 'boolean', 'True where the depositor chose "None / Other" as paradigm; null where the record has no paradigm field (atlases).'),
  derived('cognitive_contrast_is_other', 'boolean', 'True where the depositor chose "None / Other" as contrast; null where the record has no contrast field (atlases).'),
  derived('extra', 'json', 'JSON object of the keys the schema does not know (user-defined metadata such as "CIAS", an atlas\'s "data"), each value as the JSON text served, or null.'),
];

/** Version of the output schema; bump when a column is added, removed or changes type. */
export const SCHEMA_VERSION = '1';

/** Columns that come from record keys, in output order. */
export const RECORD_COLUMNS: readonly Column[] = COLUMNS.filter((c) => c.origin === 'record');

/** Names of the record keys the schema knows; every other key goes to `extra`. */
export const KNOWN_KEYS: ReadonlySet<string> = new Set(RECORD_COLUMNS.map((c) => c.name));
