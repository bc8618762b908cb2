/**
 * category: a string column of few distinct values, dictionary-encoded: Arrow Dictionary<Int32, Utf8> with the
 * column's position as its stable id. One dictionary per column grows across the batches of a run: each batch's
 * dictionary Vector is the previous chunks plus one chunk of the values first seen in that batch, and values keep
 * their place, so indices stay valid across batches and the last batch's dictionary holds every value (the Arrow file
 * writes that one, once: to-arrow.ts; a stream of batches gives an initial dictionary and deltas, never a replacement).
 */
import type { Data, Dictionary, Int32, Utf8, Vector } from 'apache-arrow';
import type { ColumnType } from '../column-type.js';
import { refusedValue } from '../encoding/invalid-value.js';
import { utf8FromStrings } from '../encoding/utf8-from-strings.js';
import { string } from './string.js';

/** A column of text with few distinct values. */
export const category: ColumnType = {
  ...string,
  kind: 'category',
  arrowType: (arrow, id) => new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32(), id, false),
  arrowEncoder: (arrow, type) => {
    const positions = new Map<string, number>();
    const chunks: Data<Utf8>[] = [];
    let dictionary: Vector<Utf8> | undefined;
    return (column) => {
      const { values } = column;
      const n = values.length;
      const indices = new Int32Array(n);
      const validity = new Uint8Array((n + 7) >> 3);
      const added: string[] = [];
      let nulls = 0;
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (v === null) {
          nulls++;
          continue;
        }
        if (!string.holds(v)) throw refusedValue(column, i, string);
        let position = positions.get(v as string);
        if (position === undefined) {
          position = positions.size;
          positions.set(v as string, position);
          added.push(v as string);
        }
        indices[i] = position;
        validity[i >> 3]! |= 1 << (i & 7);
      }
      // The first batch always gets a chunk (maybe empty): every batch must carry a dictionary.
      if (added.length > 0 || dictionary === undefined) {
        chunks.push(utf8FromStrings(arrow, added));
        dictionary = new arrow.Vector<Utf8>([...chunks]);
      }
      const nullBitmap = nulls > 0 ? validity : undefined;
      const indexType = type as Dictionary<Utf8, Int32>;
      return arrow.makeData({ type: indexType, length: n, nullCount: nulls, nullBitmap, data: indices, dictionary });
    };
  },
  readers: { arrow: 'dictionary<int32, string>', duckdb: 'VARCHAR', pandas: 'category' },
};
