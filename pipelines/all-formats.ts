/** Every record into all three formats. */
import { definePipeline } from '../src/index.js';

export default definePipeline({
  name: 'all-formats',
  description: 'Every record into images.parquet, images.arrow and images.csv',
  formats: ['parquet', 'arrow', 'csv'],
});
