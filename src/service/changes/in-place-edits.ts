/**
 * Records edited in place after the start, as their owners saving them in NeuroVault: each one's `modify_date` moves
 * to the collections' clock, its name gains a suffix, and its collection's `modify_date` moves. The edits are kept
 * apart and applied to a record's JSON as rendered (record-edits.ts).
 */
import type { DatasetParts } from './dataset-parts.js';
import type { Random } from '../basics/random.js';
import { editRecordJson, type RecordEdit } from './record-edits.js';

/** The records of a data set edited in place, and their edits. */
export class InPlaceEdits {
  /** Edited records: their new modify time and name suffix. */
  private readonly edits = new Map<number, RecordEdit>();

  constructor(private readonly options: DatasetParts) {}

  /** The record's JSON text `json` with its edit applied, if it was edited. */
  applyTo(id: number, json: string): string {
    const edit = this.edits.get(id);
    return edit === undefined ? json : editRecordJson(json, edit);
  }

  /**
   * Edits up to `count` records at random rows in place, as their owners saving them: each one's `modify_date` moves
   * to the clock's next reading, its name gains a suffix drawn from `random`, and its collection's `modify_date` moves.
   */
  edit(count: number, random: Random): number[] {
    const { list } = this.options;
    const edited: number[] = [];
    for (let k = 0; k < count && list.size > 0; k++) edited.push(this.editAt(random.int(0, list.size - 1), random));
    return edited;
  }

  /** Edits the listed record `id` as `edit` does. Returns the id. */
  editId(id: number, random: Random): number {
    const position = this.options.list.ids().indexOf(id);
    if (position === -1) throw new Error(`service: record ${id} is not listed, so it cannot be edited`);
    return this.editAt(position, random);
  }

  /** Edits the record at row `position`: modify_date to the clock, a suffix on its name, its collection touched. */
  private editAt(position: number, random: Random): number {
    const { list, collections, collectionIdOf } = this.options;
    const id = list.noteEdit(position);
    const now = collections.tick();
    const suffix = `${this.edits.get(id)?.suffix ?? ''} (edited ${random.int(1, 999_999)})`;
    this.edits.set(id, { modified: now, suffix });
    const cid = collectionIdOf(id);
    if (cid !== undefined) collections.touch(cid, now);
    return id;
  }
}
