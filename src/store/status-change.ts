import { sql } from 'kysely';
import type { Tx } from './transaction.ts';

/**
 * What the status writers (rfq-status.ts, quote-status.ts) persist: one entity's transition as
 * decided by its state machine in src/domain, written as a compare-and-set on `from`.
 */
export interface StatusChange<Status extends string, Fields> {
  id: string;
  from: Status;
  to: Status;
  /** Columns the transition sets beside the status (its outcome); none by default. */
  fields?: Fields;
}

/**
 * Writes one transition and its fields as a compare-and-set on `from`, and returns the row. The
 * caller holds the row lock, so a row that is no longer in `from` is a bug or a race the lock
 * should have prevented: the transaction is rolled back rather than written over. The writers
 * type `fields` per table; undefined fields are left as they are.
 */
export async function compareAndSetStatus<Row>(
  tx: Tx,
  target: { table: 'rfqs' | 'quotes'; entity: string },
  change: StatusChange<string, object>,
  now: number,
): Promise<Row> {
  const assignments = Object.entries({ ...change.fields, status: change.to, updated_at: now })
    .filter(([, value]) => value !== undefined)
    .map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
  const written = await sql<Row>`
    update ${sql.table(target.table)} set ${sql.join(assignments)}
    where id = ${change.id} and status = ${change.from}
    returning *
  `.execute(tx);
  const row = written.rows[0];
  if (!row) throw new Error(`${target.entity} ${change.id} is no longer ${change.from}: it changed under its lock`);
  return row;
}

/** A batch compare-and-set wrote every row it was meant to, or the transaction is rolled back. */
export function assertBatchWritten(entity: string, written: number, expected: number): void {
  if (written !== expected) throw new Error(`${entity} batch wrote ${written} of ${expected} rows: some changed under their locks`);
}
