/**
 * The names a column added to a table may have: letters, digits and `_`, not starting with a digit. Such a name needs
 * no quoting in SQL or pandas, and holds no comma, which separates the names in diff.csv's `changed_fields`.
 */

/** The pattern of a column name a pipeline may add. */
export const COLUMN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The pattern, in words, for a message refusing a name. */
export const COLUMN_NAME_RULE =
  'a column name is letters, digits and _, not starting with a digit ' + `(${String(COLUMN_NAME)})`;
