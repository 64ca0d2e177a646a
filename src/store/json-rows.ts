/**
 * Rows that a database function hands back inside one JSON answer (the accept's lock and write,
 * accept-functions.ts), typed as Kysely would type them. JSON numbers would lose the precision of
 * a NUMERIC amount (18-decimal tokens exceed 2^53), so the functions send every number as its
 * exact text (`rfq_numbers_as_text`) and the decoder turns it back by the column's type: NUMERIC
 * columns (bigint here, as the driver parses them) and integer columns (number). The column lists
 * are checked against the table types at compile time, so a new numeric column cannot be missed.
 */

/** Keys of T whose non-null type is V. */
type KeysOfType<T, V> = { [K in keyof T]-?: [Exclude<T[K], null>] extends [V] ? ([V] extends [Exclude<T[K], null>] ? K : never) : never }[keyof T];

/** Every bigint and number column of a table, named once each. */
export interface NumericColumns<T> {
  bigints: Record<KeysOfType<T, bigint>, true>;
  numbers: Record<KeysOfType<T, number>, true>;
}

/** SQL: a row's JSON with each top-level number as its exact text (nested JSON columns untouched). */
export const RFQ_NUMBERS_AS_TEXT_SQL = `
create or replace function rfq_numbers_as_text(p_row jsonb) returns jsonb
language sql immutable as $fn$
  select coalesce(jsonb_object_agg(key, case when jsonb_typeof(value) = 'number' then to_jsonb(value #>> '{}') else value end), '{}'::jsonb)
  from jsonb_each(p_row)
$fn$;
`;

export function decodeRow<T>(json: Record<string, unknown>, columns: NumericColumns<T>): T {
  const row: Record<string, unknown> = { ...json };
  for (const key of Object.keys(columns.bigints)) {
    const value = row[key];
    if (value !== null && value !== undefined) row[key] = BigInt(value as string);
  }
  for (const key of Object.keys(columns.numbers)) {
    const value = row[key];
    if (value !== null && value !== undefined) row[key] = Number(value as string);
  }
  return row as T;
}
