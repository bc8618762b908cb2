/** The default job: every record of /api/images/ into images.parquet. */
import { definePipeline } from '../src/index.js';

export default definePipeline({
  name: 'full-snapshot',
  description: 'Every record into images.parquet (what `img-etl` does with no command)',
  formats: ['parquet'],
});
