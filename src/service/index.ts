/** Public surface of the bundled Image Listing Service. */

export { startService, type RunningService } from './start-service.js';
export {
  type FaultKind,
  type FaultOptions,
  type PlannedFileRequest,
  type PlantedEffect,
  type ServiceOptions,
  NO_FAULTS,
} from './service-options.js';
export { Dataset } from './dataset/dataset.js';
export { collectionRange } from './collections/collection-layout.js';
export { ATLAS_KEYS, NIDM_MAP_KEYS, STATISTIC_MAP_KEYS } from '../schema/record-keys.js';
export { Random } from './basics/random.js';
