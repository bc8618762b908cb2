/** Every image with one derived column: add_year, the UTC year the image was added. */
import { definePipeline, derivedColumn, int64, type RowValue } from '../src/index.js';

/** The UTC year of a timestamp in microseconds since the epoch (a row's timestamps), null for null. */
function utcYear(micros: RowValue | undefined): number | null {
  if (typeof micros !== 'bigint') return null;
  const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n); // rounded down, before 1970 too
  return new Date(Number(ms)).getUTCFullYear();
}

export default definePipeline({
  name: 'derived-columns',
  description: 'Every image with add_year (int64), the UTC year of add_date, into images.parquet',
  formats: ['parquet'],
  columns: [
    derivedColumn('add_year', int64, 'UTC year of `add_date`; null when it is null.', (row) =>
      utcYear(row['add_date']),
    ),
  ],
});
