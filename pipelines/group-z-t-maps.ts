/** Group-level Z and T maps whose cognitive paradigm is known: the maps most meta-analyses start from. */
import { definePipeline, filterRows } from '../src/index.js';

export default definePipeline({
  name: 'group-z-t-maps',
  description: 'Only group-level Z and T maps with a known Cognitive Atlas paradigm (not blank, not "None / Other")',
  formats: ['parquet'],
  stages: [
    filterRows(
      (row) =>
        row['analysis_level'] === 'group' &&
        (row['map_type'] === 'Z map' || row['map_type'] === 'T map') &&
        row['cognitive_paradigm_cogatlas'] !== null &&
        row['cognitive_paradigm_is_other'] === false,
    ),
  ],
});
