import { sql, type RawBuilder } from 'kysely';
import type { Reader, Tx } from './transaction.ts';

/**
 * What the status writers (rfq-status.ts, quote-status.ts, v0-order-status.ts,
 * custody-transfer-status.ts, venue-action-status.ts, v0-withdrawal-status.ts) persist: one
 * entity's transition as decided by its state machine in src/domain, written as a compare-and-set
 * on `from`.
 */
export interface StatusChange<Status extends string, Fields> {
  id: string;
  from: Status;
  to: Status;
  /** Columns the transition sets beside the status (its outcome); none by default. */
  fields?: Fields;
}

/**
 * A transition written without the row's lock: `from` may name every status the event applies to
 * (the caller read the row, but it may have moved on among them since).
 */
export type StatusChangeIfStill<Status extends string, Fields> = Omit<StatusChange<Status, Fields>, 'from'> & { from: Status | readonly Status[] };

/** Each table with a status and the column that holds it (`/v0` withdrawals call it `state`, as the spec does). */
const STATUS_COLUMNS = { rfqs: 'status', quotes: 'status', v0_orders: 'status', custody_transfers: 'status', venue_actions: 'status', v0_withdrawals: 'state' } as const;

export type StatusTable = keyof typeof STATUS_COLUMNS;

/**
 * A transition that counts a send (custody transfers, venue actions) sets `send_attempts` to this:
 * counted in the statement, so two racing sends are both counted.
 */
export const ONE_MORE_SEND: RawBuilder<number> = sql<number>`send_attempts + 1`;

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
export async function compareAndSetStatusIfStill<Row>(db: Reader, table: StatusTable, change: StatusChangeIfStill<string, object>, now: number): Promise<Row | undefined> {
  const column = STATUS_COLUMNS[table];
  const assignments = Object.entries({ ...change.fields, [column]: change.to, updated_at: now })
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => sql`${sql.ref(name)} = ${value}`);
  const from: readonly string[] = typeof change.from === 'string' ? [change.from] : change.from;
  const written = await sql<Row>`
    update ${sql.table(table)} set ${sql.join(assignments)}
    where id = ${change.id} and ${sql.ref(column)} in (${sql.join(from)})
    returning *
  `.execute(db);
  return written.rows[0];
}

/** A batch compare-and-set wrote every row it was meant to, or the transaction is rolled back. */
export function assertBatchWritten(entity: string, written: number, expected: number): void {
  if (written !== expected) throw new Error(`${entity} batch wrote ${written} of ${expected} rows: some changed under their locks`);
}
