/**
 * Rows that a database function hands back inside one JSON answer (the accept's and the close's
 * calls, accept-functions.ts, close-functions.ts), typed as Kysely would type them. A JSON number
 * would lose the precision of a NUMERIC amount (18-decimal tokens exceed 2^53), so the functions'
 * answer is read as text and parsed keeping every number's exact source text (`parseExactJson`);
 * the decoder then turns each column back by its type: NUMERIC columns (bigint here, as the driver
 * parses them), integer columns (number), and JSON columns, which the functions send as their
 * text so that they parse exactly as the driver parses them. The column lists (row-columns.ts) are
 * checked against the table types at compile time, so a new numeric column cannot be missed.
 * (Converting numbers to text inside PostgreSQL instead cost about 90 us per row under load.)
 */

/** Keys of T whose non-null type is V. */
type KeysOfType<T, V> = { [K in keyof T]-?: [Exclude<T[K], null>] extends [V] ? ([V] extends [Exclude<T[K], null>] ? K : never) : never }[keyof T];

/** Every bigint and number column of a table, named once each, and its JSON columns (sent as text). */
export interface NumericColumns<T> {
  bigints: Record<KeysOfType<T, bigint>, true>;
  numbers: Record<KeysOfType<T, number>, true>;
  json?: Partial<Record<keyof T, true>>;
}

/** JSON.parse keeping each number as its exact source text (Node 24: the reviver's `context.source`). */
export function parseExactJson<T>(text: string): T {
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) => (typeof value === 'number' && context?.source !== undefined ? context.source : value)) as T;
}

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
  for (const key of Object.keys(columns.json ?? {})) {
    const value = row[key];
    if (typeof value === 'string') row[key] = JSON.parse(value);
  }
  return row as T;
}
