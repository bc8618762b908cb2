import { DataType, type Vector } from 'apache-arrow';

/**
 * Every value of an Arrow column exactly: timestamps as bigint microseconds (Vector.get rounds them to float
 * milliseconds).
 */
export function arrowValues(vector: Vector): unknown[] {
  if (!DataType.isTimestamp(vector.type))
    return Array.from({ length: vector.length }, (_, i) => vector.get(i) as unknown);
  const values: unknown[] = [];
  for (const data of vector.data) {
    const raw = data.values as BigInt64Array;
    // `values` is already sliced to the data's offset; only the validity bitmap is read through it.
    for (let i = 0; i < data.length; i++) values.push(data.getValid(i) ? raw[i]! : null);
  }
  return values;
}
