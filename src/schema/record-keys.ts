/** Key order of each kind of record, exactly as NeuroVault's serializers (DRF field ordering) emit them. */

const HEAD = ['url', 'id', 'file', 'collection', 'collection_id', 'file_size'] as const;

const IMAGE_MIDDLE = [
  'name',
  'description',
  'add_date',
  'modify_date',
  'is_valid',
  'surface_left_file',
  'surface_right_file',
  'data_origin',
  'target_template_image',
  'subject_species',
  'figure',
  'handedness',
  'age',
  'sex',
  'race',
  'ethnicity',
  'BMI',
  'fat_percentage',
  'waist_hip_ratio',
  'mean_PDS_score',
  'tanner_stage',
  'days_since_menstruation',
  'hours_since_last_meal',
  'bis_bas_score',
  'spsrq_score',
  'bis11_score',
  'thumbnail',
  'reduced_representation',
] as const;

const QA = [
  'is_thresholded',
  'perc_bad_voxels',
  'not_mni',
  'brain_coverage',
  'perc_voxels_outside',
  'number_of_subjects',
] as const;

/**
 * A statistic map: declared fields (cogatlas, map_type, analysis_level) first, then model fields;
 * user-defined metadata keys follow `cognitive_paradigm_name`, and `image_type` comes last.
 */
export const STATISTIC_MAP_KEYS = [
  ...HEAD,
  'cognitive_paradigm_cogatlas',
  'cognitive_paradigm_cogatlas_id',
  'cognitive_contrast_cogatlas',
  'cognitive_contrast_cogatlas_id',
  'map_type',
  'analysis_level',
  ...IMAGE_MIDDLE,
  ...QA,
  'modality',
  'statistic_parameters',
  'smoothness_fwhm',
  'contrast_definition',
  'contrast_definition_cogatlas',
  'cognitive_paradigm_description_url',
  'cognitive_paradigm_short_description',
  'cognitive_paradigm_name',
  'image_type',
] as const;

/** An atlas: no map type, modality, cogatlas, QA or analysis fields; `label_description_file` and `data` added. */
export const ATLAS_KEYS = [...HEAD, 'label_description_file', ...IMAGE_MIDDLE, 'data', 'image_type'] as const;

/**
 * A map from an NIDM Results upload. NIDMResultStatisticMapSerializer declares nidm_results,
 * nidm_results_ttl, description, map_type and analysis_level, so DRF puts them right after the
 * inherited declared fields; it excludes only polymorphic_ctype, so `data` and the QA fields of
 * BaseStatisticMap follow the Image fields. StatisticMap's own fields (modality, cogatlas, ...) are absent.
 */
export const NIDM_MAP_KEYS = [
  ...HEAD,
  'nidm_results',
  'nidm_results_ttl',
  'description',
  'map_type',
  'analysis_level',
  ...IMAGE_MIDDLE.filter((key) => key !== 'description'),
  'data',
  ...QA,
  'image_type',
] as const;

/** Keys whose values are absolute URLs built on the serving origin. */
export const URL_KEYS: readonly string[] = [
  'url',
  'file',
  'collection',
  'surface_left_file',
  'surface_right_file',
  'thumbnail',
  'reduced_representation',
  'label_description_file',
  'nidm_results',
  'nidm_results_ttl',
];
