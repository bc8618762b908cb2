/** Public surface of the bundled Image Listing Service. */

export { startService, DEFAULT_GENERATED_RECORDS, type RunningService } from './start-service.js';
export {
  type FaultKind,
  type FaultOptions,
  type PlannedRequest,
  type ResolvedFaults,
  type PlantedEffect,
  type ServiceOptions,
  NO_FAULTS,
} from './service-options.js';
export type { FileFaultKind, PlannedFileRequest } from './service-options.js';
export type { FileResponse, FileStats } from './service-stats.js';
export { Dataset, type DatasetSource } from './dataset/dataset.js';
export { type Mutation } from './changes/listed-ids.js';
export { CollectionRegistry, type CollectionEntry } from './collections/collection-registry.js';
export { type DataRecordInput, NEUROVAULT_ORIGIN, readNdjsonLines } from './records/data-records.js';
export { type ServiceStats } from './service-stats.js';
export { generateRecordJson, imageTypeOf } from './records/generate-record.js';
export { collectionOf, collectionRange } from './collections/collection-layout.js';
export { type ImageType } from './collections/collection-traits.js';
export { ATLAS_KEYS, NIDM_MAP_KEYS, STATISTIC_MAP_KEYS } from '../schema/record-keys.js';
export { formatBerlinTimestamp, berlinOffsetHours } from '../text/berlin-time.js';
export { DEFAULT_LIMIT, MAX_LIMIT, effectiveLimit, effectiveOffset, pageWindow } from './http/pagination.js';
export { pythonInt } from './http/query-params.js';
export { Random } from './basics/random.js';
