/**
 * The one source of truth for the images table: every column, its type and its meaning. The record check, the zod
 * record schema, normalisation, the Arrow schema and encoders, the Parquet writers, both CSV writers, diff and the
 * schema tables of docs/schema.md all read this list (through IMAGES) and the column types it names (column-types/);
 * nothing else states a type's rules. The collections table is defined the same way in collection-columns.ts.
 */
import type { Column, ColumnType } from './column-type.js';
import { boolean } from './column-types/boolean.js';
import { category } from './column-types/category.js';
import { float64 } from './column-types/float64.js';
import { int64, nonNegativeInt64 } from './column-types/int64.js';
import { json } from './column-types/json.js';
import { string } from './column-types/string.js';
import { timestamp } from './column-types/timestamp.js';
import { defineTable, type Table } from './table.js';

export type { ColumnKind, ColumnType } from './column-type.js';

/** What a record column may say beyond its type: required, its sentinel, its dictionary choice. */
export type ColumnOptions = Partial<Pick<Column, 'required' | 'sentinel' | 'dictionary'>>;

/** A column of a record key, of `type`. */
export function record(name: string, type: ColumnType, doc: string, options: ColumnOptions = {}): Column {
  return { name, type, origin: 'record', doc, dictionary: type.dictionary, ...options };
}

/** A link to one record's own page or file: unique per record, so a dictionary of them only costs space. */
export function link(name: string, doc: string): Column {
  return record(name, string, doc, { dictionary: false });
}

/** The `extra` column: the record's keys that no other column names, as one JSON object, each value as served. */
export function extraColumn(doc: string): Column {
  return { name: 'extra', type: json, origin: 'unknown-keys', doc, dictionary: json.dictionary };
}

/**
 * A Cognitive Atlas pair: the name and id columns, whose sentinels ("None / Other", id "None") become null, and the
 * derived flag that keeps the depositor's choice of them (null where the record has neither key: atlases).
 */
function cognitiveAtlas(what: 'paradigm' | 'contrast', idPrefix: string): Record<'name' | 'id' | 'isOther', Column> {
  const key = `cognitive_${what}_cogatlas`;
  const flag = `cognitive_${what}_is_other`;
  const nameDoc = `Cognitive Atlas ${what} name; null for blank and for "None / Other" (see ${flag}).`;
  const name = record(key, category, nameDoc, { sentinel: 'None / Other' });
  const idDoc = `Cognitive Atlas ${what} id (\`${idPrefix}…\`); null for blank and for the sentinel "None".`;
  const id = record(`${key}_id`, category, idDoc, { sentinel: 'None' });
  const flagDoc = `True where the depositor chose "None / Other" as ${what}; null where the record has no ${what}`;
  const isOther: Column = {
    name: flag,
    type: boolean,
    origin: 'derived',
    doc: `${flagDoc} field (atlases).`,
    dictionary: false,
    derive: (r) => {
      const [a, b] = [r[name.name], r[id.name]];
      return a === undefined && b === undefined ? null : a === name.sentinel || b === id.sentinel;
    },
  };
  return { name, id, isOther };
}

const paradigm = cognitiveAtlas('paradigm', 'trm_');
const contrast = cognitiveAtlas('contrast', 'cnt_');

/** Every output column in output order: the real service's key order, then type-specific keys, then derived ones. */
export const COLUMNS: readonly Column[] = [
  link('url', 'Absolute link to the record (`/images/<id>/`).'),
  record('id', nonNegativeInt64, 'Record identifier; unique in a snapshot, rows are in ascending id order.', {
    required: true,
  }),
  link('file', 'Absolute link to the image file.'),
  record('collection', string, 'Absolute link to the owning collection.'),
  record('collection_id', int64, 'Identifier of the owning collection.'),
  record('file_size', int64, 'Size of the image file in bytes; 0 when the file is missing on the server.'),
  paradigm.name,
  paradigm.id,
  contrast.name,
  contrast.id,
  record(
    'map_type',
    category,
    'Kind of map: "T map", "Z map", "P map (given null hypothesis)", "ROI/mask", ' +
      '"parcellation", …; null for atlases.',
  ),
  record('analysis_level', category, 'Analysis level: "single-subject", "group", "meta-analysis", "other" or null.'),
  record('name', string, 'Display name of the image.'),
  record('description', string, 'Free text; null when empty.'),
  record('add_date', timestamp, 'Creation instant in UTC, microseconds kept (served in Europe/Berlin offsets).'),
  record('modify_date', timestamp, 'Last modification instant in UTC, microseconds kept.'),
  record('is_valid', boolean, 'Validity flag of the record.'),
  link('surface_left_file', 'Absolute link to the left-hemisphere surface file, or null.'),
  link('surface_right_file', 'Absolute link to the right-hemisphere surface file, or null.'),
  record('data_origin', category, 'Origin of the data: "volume" or "surface".'),
  record(
    'target_template_image',
    category,
    'Reference template, e.g. "GenericMNI", "MNI152NLin2009cAsym", "Dorr2008".',
  ),
  record('subject_species', category, 'Species, e.g. "homo sapiens", "mus musculus".'),
  record('figure', string, 'Figure of the paper the map belongs to; null when empty.'),
  record('handedness', category, 'Handedness code (L/R).'),
  record('age', float64, 'Age of the subjects.'),
  record('sex', category, 'Sex code (M/F/O).'),
  record('race', category, 'Race code.'),
  record('ethnicity', category, 'Ethnicity code.'),
  record('BMI', float64, 'Body mass index.'),
  record('fat_percentage', float64, 'Body fat percentage.'),
  record('waist_hip_ratio', float64, 'Waist-to-hip ratio.'),
  record('mean_PDS_score', float64, 'Mean pubertal development scale score.'),
  record('tanner_stage', category, 'Tanner stage (I–V).'),
  record('days_since_menstruation', float64, 'Days since menstruation.'),
  record('hours_since_last_meal', float64, 'Hours since the last meal.'),
  record('bis_bas_score', float64, 'BIS/BAS score.'),
  record('spsrq_score', float64, 'SPSRQ score.'),
  record('bis11_score', float64, 'BIS-11 score.'),
  link('thumbnail', 'Absolute link to the glass-brain preview picture, or null.'),
  link('reduced_representation', 'Absolute link to the reduced representation file, or null.'),
  record('is_thresholded', boolean, 'Whether the map is thresholded; null for atlases.'),
  record('perc_bad_voxels', float64, 'Percentage of bad voxels.'),
  record('not_mni', boolean, 'Whether the image is not in MNI space; null for atlases.'),
  record('brain_coverage', float64, 'Percentage of the brain covered (0–100).'),
  record('perc_voxels_outside', float64, 'Percentage of voxels outside the brain mask (0–100).'),
  record('number_of_subjects', int64, 'Number of subjects behind the map.'),
  record('modality', category, 'Imaging modality, e.g. "fMRI-BOLD"; null when empty (old records).'),
  record('statistic_parameters', float64, 'Statistic parameters (degrees of freedom).'),
  record('smoothness_fwhm', float64, 'Smoothness FWHM in mm.'),
  record('contrast_definition', string, 'Contrast definition; null when empty.'),
  record('contrast_definition_cogatlas', string, 'Contrast definition from Cognitive Atlas; null when empty.'),
  record('cognitive_paradigm_description_url', string, 'Link to the paradigm description; null when empty.'),
  record('cognitive_paradigm_short_description', string, 'Short paradigm description.'),
  record(
    'cognitive_paradigm_name',
    string,
    'Paradigm name, a text field apart from the Cognitive Atlas choice, kept as served: a "None / Other" here stays ' +
      '(only the Cognitive Atlas columns turn it into null). Null in every neurovault.org record seen.',
  ),
  record('image_type', category, 'Record type: "statistic_map", "atlas" or "NIDM results statistic map".'),
  link('label_description_file', 'Atlases only: link to the label description file.'),
  link('nidm_results', 'NIDM results maps only: link to the NIDM results.'),
  link('nidm_results_ttl', 'NIDM results maps only: link to the NIDM results Turtle file.'),
  paradigm.isOther,
  contrast.isOther,
  extraColumn(
    'JSON object of the keys the schema does not know (user-defined metadata such as "CIAS", an atlas\'s "data"), ' +
      'each value as the JSON text served, or null.',
  ),
];

/** Version of the images table's schema; bump when a column is added, removed or changes type. */
export const SCHEMA_VERSION = '1';

/** The images table: `/api/images/` records, one row per map. */
export const IMAGES: Table = defineTable({
  name: 'images',
  columns: COLUMNS,
  schemaVersion: SCHEMA_VERSION,
  files: { parquet: 'images.parquet', arrow: 'images.arrow', csv: 'images.csv', rejects: 'rejects.ndjson' },
  diffFiles: { parquet: 'diff.parquet', csv: 'diff.csv' },
  diffContext: ['collection_id', 'name'],
});

/** The images' columns that come from record keys, in output order. */
export const RECORD_COLUMNS: readonly Column[] = IMAGES.recordColumns;

/** Names of the record keys the images table knows; every other key goes to `extra`. */
export const KNOWN_KEYS: ReadonlySet<string> = IMAGES.knownKeys;
