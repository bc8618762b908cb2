/**
 * One growing dictionary per category column. Each batch's dictionary Vector is the previous chunks plus one new
 * chunk with the values first seen in that batch, so apache-arrow's IPC writers, which compare the first chunk and
 * count chunks, write one initial dictionary and then only deltas: never a replacement (which the IPC file format
 * forbids). Indices stay valid across batches because values keep their position.
 */
import { Vector, makeData, type Data, type Dictionary, type Int32, type Utf8 } from 'apache-arrow';
import type { Row } from '../schema/row.js';
import { utf8FromStrings } from './arrow-column-data.js';
import { invalidValue, type BatchPlace } from './invalid-value.js';

/** The dictionary of one category column across all batches of a run. */
export class CategoryDictionary {
  private readonly positions = new Map<string, number>();
  private readonly chunks: Data<Utf8>[] = [];
  private vector: Vector<Utf8> | undefined;

  constructor(
    /** The column's Arrow dictionary type (with its id). */
    readonly type: Dictionary<Utf8, Int32>,
  ) {}

  /** Distinct values seen so far. */
  get size(): number {
    return this.positions.size;
  }

  /** Encodes one batch's values of column `name` as indices into the dictionary, growing it by the new values; after an error, discard the dictionary. */
  encode(rows: readonly Row[], name: string, place: BatchPlace): Data<Dictionary<Utf8, Int32>> {
    const n = rows.length;
    const indices = new Int32Array(n);
    const validity = new Uint8Array((n + 7) >> 3);
    const added: string[] = [];
    let nulls = 0;
    for (let i = 0; i < n; i++) {
      const v = rows[i]![name];
      if (v === null) {
        nulls++;
        continue;
      }
      if (typeof v !== 'string') throw invalidValue(rows, i, name, v, 'a string', place);
      let position = this.positions.get(v);
      if (position === undefined) {
        position = this.positions.size;
        this.positions.set(v, position);
        added.push(v);
      }
      indices[i] = position;
      validity[i >> 3]! |= 1 << (i & 7);
    }
    // The first batch always gets a chunk (maybe empty): every batch must carry a dictionary.
    if (added.length > 0 || this.vector === undefined) {
      this.chunks.push(utf8FromStrings(added));
      this.vector = new Vector<Utf8>([...this.chunks]);
    }
    return makeData({ type: this.type, length: n, nullCount: nulls, nullBitmap: nulls > 0 ? validity : undefined, data: indices, dictionary: this.vector });
  }
}
