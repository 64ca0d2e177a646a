/**
 * The service's liveness row and its outages (migration 0186): every node's heartbeat moves
 * `service_liveness.alive_at` forward; a gap in it is recorded once in `service_outages`.
 */
import type { Reader, Tx } from './transaction.ts';

/** A heartbeat: the service is alive at `now` (the row only moves forward). */
export async function markServiceAlive(tx: Tx, now: number): Promise<void> {
  await tx
    .insertInto('service_liveness')
    .values({ id: 1, alive_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ alive_at: eb.fn('greatest', ['service_liveness.alive_at', 'excluded.alive_at']) })))
    .execute();
}

/** When the service was last alive, the liveness row locked (two nodes starting take turns); null if never. */
export async function lockLastAlive(tx: Tx): Promise<number | null> {
  const row = await tx.selectFrom('service_liveness').select('alive_at').where('id', '=', 1).forUpdate().executeTakeFirst();
  return row ? row.alive_at : null;
}

/** Records the outage [startedAt, endedAt] once. */
export async function insertServiceOutage(tx: Tx, outage: { startedAt: number; endedAt: number }): Promise<void> {
  await tx.insertInto('service_outages').values({ started_at: outage.startedAt, ended_at: outage.endedAt }).onConflict((oc) => oc.doNothing()).execute();
}

/** True when an outage overlapped the span [from, to] (ms). */
export async function outageDuring(db: Reader, from: number, to: number): Promise<boolean> {
  const row = await db.selectFrom('service_outages').select('started_at').where('started_at', '<', to).where('ended_at', '>', from).limit(1).executeTakeFirst();
  return row !== undefined;
}
