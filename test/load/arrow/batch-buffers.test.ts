import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { ArrowBatchBuilder } from '../../../src/load/arrow/arrow-batches.js';
import { batchBuffers, readBatchBuffers } from '../../../src/load/arrow/batch-buffers.js';
import { IMAGES } from '../../../src/schema/columns.js';
import { fixtureRows } from '../fixture-rows.js';

const ipc = (batch: arrow.RecordBatch) => Buffer.from(arrow.tableToIPC(new arrow.Table([batch]), 'file'));

describe('batch buffers', () => {
  const batch = new ArrowBatchBuilder(IMAGES).build(fixtureRows());

  it('read back give the batch written, wherever the bytes lie in memory', () => {
    const bytes = batchBuffers(batch);
    const shifted = new Uint8Array(bytes.byteLength + 3).subarray(3); // not 8-byte aligned
    shifted.set(bytes);
    for (const input of [bytes, shifted])
      expect(ipc(readBatchBuffers(batch.schema, input)).equals(ipc(batch))).toBe(true);
  });

  it('refuse bytes of other columns, naming them', () => {
    const other = new arrow.Schema(batch.schema.fields.slice(1));
    expect(() => readBatchBuffers(other, batchBuffers(batch))).toThrow(/^holds columns url, id, .*, not id, /);
  });
});
