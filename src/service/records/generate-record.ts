/**
 * The deterministic record generator: every field of a record is a pure function of (seed, id),
 * so a million-record data set needs no record storage and the same seed serves the same bytes.
 */
import { formatBerlinTimestamp } from '../../text/berlin-time.js';
import { collectionOf } from '../collections/collection-layout.js';
import {
  collectionTraits,
  type CollectionTraits,
  type ImageType,
  recordKind,
} from '../collections/collection-traits.js';
import {
  ANALYSIS_LEVELS,
  ATLAS_NAMES,
  CONTRAST_DEFINITIONS,
  CONTRASTS,
  DESCRIPTIONS,
  EXTRA_STRINGS,
  MAP_TYPES,
  PARADIGMS,
  SHORT_CODES,
} from '../basics/generator-vocabulary.js';
import { imageTimes } from '../basics/image-times.js';
import { jsonNullableString, jsonString, pythonFloat } from '../../text/python-json.js';
import { hash32, Random } from '../basics/random.js';

/** The compact JSON text of the generated record with this id, its URLs on `origin`; `uploaded` overrides its times. */
export function generateRecordJson(seed: number, id: number, origin: string, uploaded?: number): string {
  const cid = collectionOf(seed, id);
  const c = collectionTraits(seed, cid);
  const rng = new Random(hash32(seed, id, 0x1d));
  const kind = recordKind(c, rng);
  const r: RecordDraw = { id, cid, c, rng, kind, origin, media: `${origin}/media/images/${cid}` };
  const times = uploaded === undefined ? imageTimes(seed, id, c.bulkUpdate) : { added: uploaded, modified: uploaded };
  const { start, nidm, nameField, descriptionField, dated, fileBase } = commonFields(r, times);

  if (kind === 'atlas') {
    const labels = `"label_description_file":${jsonString(`${r.media}/${fileBase}.xml`)},`;
    return `${start}${labels}${nameField}${descriptionField}${dated}"data":{},"image_type":"atlas"}`;
  }

  const level = levelFields(r);
  const qa = qaFields(r);
  if (kind === 'NIDM results statistic map') {
    // NIDM maps declare description, map_type and analysis_level, so DRF lists them early.
    return (
      `${start}${nidm}${descriptionField}${level}${nameField}${dated}"data":{},${qa}` +
      '"image_type":"NIDM results statistic map"}'
    );
  }

  const { cogatlas, statistic } = statisticMapFields(r);
  const fields = `${cogatlas}${level}${nameField}${descriptionField}${dated}${qa}${statistic}`;
  return `${start}${fields}${extras(c.extraKeys, rng)}"image_type":"statistic_map"}`;
}

/**
 * What the fields of a record are drawn from: its id, its collection, its random sequence (each field drawn in the
 * order the generator always drew it, so that the same seed serves the same bytes), its kind and where its media are.
 */
interface RecordDraw {
  id: number;
  cid: number;
  c: CollectionTraits;
  rng: Random;
  kind: ImageType;
  origin: string;
  media: string;
}

/** The fields every kind of record has: url to file_size, name, description, add_date to reduced_representation. */
function commonFields(r: RecordDraw, times: { added: number; modified: number }) {
  const { id, cid, c, rng, kind, origin, media } = r;
  const head = `{"url":"${origin}/images/${id}/","id":${id},`;
  const collection = `"collection":"${origin}/collections/${cid}/","collection_id":${cid},`;
  const fileSize = rng.chance(0.01) ? 0 : Math.round(Math.exp(rng.next() * LOG_SIZE_RANGE) * 2_000);
  const { name, fileBase } = drawName(r);
  const description = rng.chance(0.7) ? c.description : rng.weighted(DESCRIPTIONS);
  const dated = datedFields(r, times);
  const nidm = kind === 'NIDM results statistic map' ? nidmResults(r) : undefined;
  const file = nidm?.file ?? `${media}/${fileBase}.nii.gz`;
  return {
    start: `${head}"file":${jsonString(file)},${collection}"file_size":${fileSize},`,
    nidm: nidm?.fields ?? '',
    nameField: `"name":${jsonString(name)},`,
    descriptionField: `"description":${jsonString(nidm?.description ?? description)},`,
    dated,
    fileBase,
  };
}

/** The record's name (its collection's, or an atlas's, with the id's ordinal mostly) and the base of its file name. */
function drawName(r: RecordDraw): { name: string; fileBase: string } {
  const { id, c, rng, kind } = r;
  const stem = kind === 'atlas' ? rng.pick(ATLAS_NAMES) : c.nameStem;
  const whole = rng.chance(0.15);
  const ordinal = String(id % 1000).padStart(3, '0');
  const name = whole ? stem : `${stem} ${ordinal}`;
  const safeStem = safeFileName(stem);
  // File names are unique in a collection, as Django's storage makes them: the id tells apart maps of one name.
  return { name, fileBase: `${safeStem}_${id}` };
}

/** The fields from add_date to reduced_representation: times, validity, surfaces, template, figure and media. */
function datedFields(r: RecordDraw, times: { added: number; modified: number }): string {
  const { id, c, rng, kind, media } = r;
  const { added, modified } = times;
  const isValid = rng.chance(0.92);
  const surfaceOrigin = rng.chance(0.03);
  const hasSurfaces = surfaceOrigin || rng.chance(0.55);
  const figure = rng.chance(0.65) ? 'null' : rng.chance(0.6) ? '""' : `"Figure ${rng.int(1, 8)}"`;
  const nutBrain = nutBrainFields(rng);
  const thumbnail = hasSurfaces || rng.chance(0.9) ? `"${media}/glass_brain_${id}${c.thumbnailSuffix}.jpg"` : 'null';
  const reduced = kind !== 'atlas' && rng.chance(0.45) ? `"${media}/transform_4mm_${id}.npy"` : 'null';
  const surfaces = hasSurfaces
    ? `"surface_left_file":"${media}/${id}.L.func.gii","surface_right_file":"${media}/${id}.R.func.gii",`
    : '"surface_left_file":null,"surface_right_file":null,';
  return (
    `"add_date":"${formatBerlinTimestamp(added)}","modify_date":"${formatBerlinTimestamp(modified)}",` +
    `"is_valid":${isValid},${surfaces}"data_origin":"${surfaceOrigin ? 'surface' : 'volume'}",` +
    `"target_template_image":"${c.template[0]}","subject_species":"${c.template[1]}","figure":${figure},` +
    `${nutBrain}"thumbnail":${thumbnail},"reduced_representation":${reduced},`
  );
}

/** A NIDM results map's file (a statistic map of its collection's zip), its description and its nidm_results fields. */
function nidmResults(r: RecordDraw): { file: string; description: string; fields: string } {
  const { id, cid, c, rng, origin, media } = r;
  const statFile = `${rng.pick(NIDM_MAPS)}_${String(id).padStart(4, '0')}.nii.gz`;
  return {
    file: `${media}/${c.nidmName}/${statFile}`,
    description: `NIDM Results: ${c.nidmName}.zip > ${statFile}`,
    fields:
      `"nidm_results":"${origin}/collections/${cid}/${c.nidmName}/",` +
      `"nidm_results_ttl":"${media}/${c.nidmName}/nidm.ttl",`,
  };
}

/** map_type and analysis_level of a statistic or NIDM map. */
function levelFields(r: RecordDraw): string {
  const { c, rng, kind } = r;
  const mapType =
    kind === 'statistic_map' ? (rng.chance(0.7) ? c.mapType : rng.weighted(MAP_TYPES)) : rng.pick(NIDM_MAP_TYPES);
  const analysisLevel = rng.chance(0.85) ? c.analysisLevel : rng.weighted(ANALYSIS_LEVELS);
  return `"map_type":${jsonString(mapType)},"analysis_level":${jsonNullableString(analysisLevel)},`;
}

/** The quality fields of a statistic or NIDM map, from is_thresholded to number_of_subjects. */
function qaFields(r: RecordDraw): string {
  const { c, rng } = r;
  return (
    `"is_thresholded":${rng.chance(0.3)},"perc_bad_voxels":${qaFloat(rng)},"not_mni":${rng.chance(0.04)},` +
    `"brain_coverage":${qaFloat(rng)},"perc_voxels_outside":${qaFloat(rng)},` +
    `"number_of_subjects":${c.subjects === null || rng.chance(0.1) ? 'null' : c.subjects},`
  );
}

/** A statistic map's Cognitive Atlas paradigm and contrast, and its fields from modality to cognitive_paradigm_name. */
function statisticMapFields(r: RecordDraw): { cogatlas: string; statistic: string } {
  const { c, rng } = r;
  const paradigm = rng.chance(0.9) ? c.paradigm : rng.weighted(PARADIGMS);
  const contrast = rng.chance(0.8) ? c.contrast : rng.weighted(CONTRASTS);
  const cogatlas =
    `"cognitive_paradigm_cogatlas":${jsonNullableString(paradigm[0])},` +
    `"cognitive_paradigm_cogatlas_id":${jsonNullableString(paradigm[1])},` +
    `"cognitive_contrast_cogatlas":${jsonNullableString(contrast[0])},` +
    `"cognitive_contrast_cogatlas_id":${jsonNullableString(contrast[1])},`;
  return { cogatlas, statistic: statisticFields(r, paradigm[0]) };
}

/** A statistic map's fields from modality to cognitive_paradigm_name; `paradigmName` its Cognitive Atlas paradigm. */
function statisticFields(r: RecordDraw, paradigmName: string | null): string {
  const { cid, c, rng } = r;
  // Drawn only when chosen, so that the generator's random sequence stays as it was.
  const contrastDefinition = () => jsonString(rng.pick(CONTRAST_DEFINITIONS));
  const doi = `10.1016/j.neuroimage.${2010 + (cid % 14)}.${String(cid % 1000).padStart(3, '0')}`;
  const descriptionUrl = `"https://doi.org/${doi}"`;
  return (
    `"modality":${jsonString(c.modality)},` +
    `"statistic_parameters":${rng.chance(0.15) ? pythonFloat(rng.int(5, 120)) : 'null'},` +
    `"smoothness_fwhm":${rng.chance(0.1) ? pythonFloat(roundTo(rng.next() * 12, 15)) : 'null'},` +
    `"contrast_definition":${rng.chance(0.6) ? 'null' : rng.chance(0.5) ? '""' : contrastDefinition()},` +
    `"contrast_definition_cogatlas":${rng.chance(0.9) ? 'null' : '""'},` +
    `"cognitive_paradigm_description_url":${rng.chance(0.6) ? 'null' : rng.chance(0.6) ? '""' : descriptionUrl},` +
    `"cognitive_paradigm_short_description":${rng.chance(0.95) ? 'null' : '"Participants viewed faces and houses."'},` +
    `"cognitive_paradigm_name":${rng.chance(0.95) ? 'null' : jsonString(paradigmName ?? 'custom paradigm')},`
  );
}

const LOG_SIZE_RANGE = Math.log(15_000);
const NIDM_MAPS = ['TStatistic', 'ZStatistic', 'FStatistic'] as const;
const NIDM_MAP_TYPES = ['T map', 'Z map', 'F map'] as const;

function qaFloat(rng: Random): string {
  if (rng.chance(0.02)) return 'null'; // NaN in the database, served as null
  if (rng.chance(0.03)) return '0.0';
  if (rng.chance(0.01)) return '100.0';
  return pythonFloat(percentage(rng));
}

function nutBrainFields(rng: Random): string {
  if (!rng.chance(0.007)) return NUTBRAIN_ALL_NULL;
  const code = (codes: readonly string[]): string => (rng.chance(0.7) ? `"${rng.pick(codes)}"` : 'null');
  const float = (min: number, max: number): string =>
    rng.chance(0.7) ? pythonFloat(roundTo(min + rng.next() * (max - min), 4)) : 'null';
  return (
    `"handedness":${code(SHORT_CODES.handedness)},"age":${float(8, 80)},"sex":${code(SHORT_CODES.sex)},` +
    `"race":${code(SHORT_CODES.race)},"ethnicity":${code(SHORT_CODES.ethnicity)},"BMI":${float(16, 40)},` +
    `"fat_percentage":${float(5, 45)},"waist_hip_ratio":${float(0.6, 1.2)},"mean_PDS_score":${float(1, 4)},` +
    `"tanner_stage":${code(SHORT_CODES.tanner_stage)},"days_since_menstruation":${float(0, 28)},` +
    `"hours_since_last_meal":${float(0, 36)},"bis_bas_score":${float(10, 40)},"spsrq_score":${float(0, 48)},` +
    `"bis11_score":${float(30, 120)},`
  );
}

const NUTBRAIN_ALL_NULL =
  '"handedness":null,"age":null,"sex":null,"race":null,"ethnicity":null,"BMI":null,"fat_percentage":null,' +
  '"waist_hip_ratio":null,"mean_PDS_score":null,"tanner_stage":null,"days_since_menstruation":null,' +
  '"hours_since_last_meal":null,"bis_bas_score":null,"spsrq_score":null,"bis11_score":null,';

// User-defined metadata passes through json.loads, so a key's type changes from record to record.
function extras(keys: readonly string[], rng: Random): string {
  let out = '';
  for (const key of keys) {
    const roll = rng.next();
    let value: string;
    if (roll < 0.4) value = String(rng.int(0, 99));
    else if (roll < 0.6) value = '""';
    else if (roll < 0.75) value = jsonString(rng.pick(EXTRA_STRINGS));
    else if (roll < 0.85) value = pythonFloat(roundTo(rng.next() * 50, 6));
    else if (roll < 0.93) value = rng.chance(0.5) ? 'true' : 'false';
    else value = 'null';
    out += `${jsonString(key)}:${value},`;
  }
  return out;
}

function roundTo(value: number, significantDigits: number): number {
  return Number(value.toPrecision(significantDigits));
}

// A QA percentage with the 15 significant digits Postgres float8 output gives.
function percentage(rng: Random): number {
  return Math.round(rng.next() * 1e15) / 1e13;
}

const SAFE_NAMES = new Map<string, string>();

function safeFileName(name: string): string {
  let safe = SAFE_NAMES.get(name);
  if (safe === undefined) {
    safe = name.replace(/[^A-Za-z0-9.-]+/g, '_').replace(/^_+|_+$/g, '');
    if (safe === '') safe = 'map';
    SAFE_NAMES.set(name, safe);
  }
  return safe;
}
