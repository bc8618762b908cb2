/** One problem found in a record: where and what. */
export interface RecordIssue {
  /** Key path inside the record, e.g. `["file_size"]`. */
  path: (string | number)[];
  /** What is wrong, with the bad value where useful. */
  message: string;
}
