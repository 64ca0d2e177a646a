/**
 * A create request's idempotency key (spec: `idempotencyKey`), claimed by the table's unique index
 * on (account_id, idempotency_key) in the inserting statement itself: the first request inserts;
 * a repeat with the same request replays the original; a repeat with a different request is
 * refused; a concurrent duplicate waits on the index, loses, and replays the winner. Used by every
 * table whose rows a client creates with a key (RFQs, withdrawals).
 */
import { sql, type Insertable, type Selectable } from 'kysely';
import { ServiceError } from '../domain/errors.ts';
import type { DB } from './schema.ts';
import type { Tx } from './transaction.ts';

type KeyedTable = 'rfqs' | 'withdrawals';

/** What makes a row keyed: its owner, its key (none: always inserted) and the request it was created by. */
interface Keyed {
  id: string;
  account_id: string;
  idempotency_key: string | null;
  request_fingerprint: string;
}

/**
 * Inserts `row` and answers null, or answers the row its key already names (a replay).
 * @throws ServiceError IDEMPOTENCY_KEY_REUSED when that row was created by a different request
 *   (`details[idDetail]` is its id).
 */
export async function insertIdempotent<T extends KeyedTable>(tx: Tx, table: T, row: Insertable<DB[T]> & Keyed, idDetail: string): Promise<Selectable<DB[T]> | null> {
  const inserted = await tx
    .insertInto(table)
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return null;
  const found = await sql<Selectable<DB[T]> & Keyed>`select * from ${sql.table(table)} where account_id = ${row.account_id} and idempotency_key = ${row.idempotency_key}`.execute(tx);
  const original = found.rows[0];
  if (!original) throw new Error(`${table}: the key ${row.idempotency_key} conflicted, yet no row holds it`);
  if (original.request_fingerprint !== row.request_fingerprint) {
    throw new ServiceError('IDEMPOTENCY_KEY_REUSED', 'idempotencyKey was already used for a different request', { [idDetail]: original.id });
  }
  return original;
}
