import { sql } from 'kysely';
import type { Reader, Tx } from './transaction.ts';

/**
 * What the status writers (rfq-status.ts, quote-status.ts, v0-order-status.ts) persist: one entity's transition as
 * decided by its state machine in src/domain, written as a compare-and-set on `from`.
 */
export interface StatusChange<Status extends string, Fields> {
  id: string;
  from: Status;
  to: Status;
  /** Columns the transition sets beside the status (its outcome); none by default. */
  fields?: Fields;
}

type StatusTable = 'rfqs' | 'quotes' | 'v0_orders';

/**
 * Writes one transition and its fields as a compare-and-set on `from`, and returns the row. The
 * caller holds the row lock, so a row that is no longer in `from` is a bug or a race the lock
 * should have prevented: the transaction is rolled back rather than written over. The writers
 * type `fields` per table; undefined fields are left as they are.
 */
export async function compareAndSetStatus<Row>(tx: Tx, target: { table: StatusTable; entity: string }, change: StatusChange<string, object>, now: number): Promise<Row> {
  const row = await compareAndSetStatusIfStill<Row>(tx, target.table, change, now);
  if (!row) throw new Error(`${target.entity} ${change.id} is no longer ${change.from}: it changed under its lock`);
  return row;
}

/**
 * The compare-and-set without a row lock held: a row that has moved on from `from` is left as
 * it is, and undefined is returned (the caller's transition lost a race it may lose).
 */
export async function compareAndSetStatusIfStill<Row>(db: Reader, table: StatusTable, change: StatusChange<string, object>, now: number): Promise<Row | undefined> {
  const assignments = Object.entries({ ...change.fields, status: change.to, updated_at: now })
    .filter(([, value]) => value !== undefined)
    .map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
  const written = await sql<Row>`
    update ${sql.table(table)} set ${sql.join(assignments)}
    where id = ${change.id} and status = ${change.from}
    returning *
  `.execute(db);
  return written.rows[0];
}

/** A batch compare-and-set wrote every row it was meant to, or the transaction is rolled back. */
export function assertBatchWritten(entity: string, written: number, expected: number): void {
  if (written !== expected) throw new Error(`${entity} batch wrote ${written} of ${expected} rows: some changed under their locks`);
}
