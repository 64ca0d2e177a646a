/**
 * Service outages: spans in which no node of the service was alive, so no maker could relay a
 * permit (or call anything). Every node's heartbeat moves `service_liveness.alive_at` forward; the
 * first node to start after a gap longer than two beat intervals (presence.ts) records the gap in
 * `service_outages`, whatever ended it (a crash, or every node stopped cleanly). The settlement
 * expiry does not count a permit2 maker's failure against it when its settlement window overlapped
 * an outage (expire-settlement.ts): the service, not the maker, was missing. The funds and the RFQ
 * end exactly as before; only the maker's record changes.
 */
import type { Reader, Tx } from '../../store/transaction.ts';

export interface ServiceOutage {
  startedAt: number;
  endedAt: number;
}

/** A heartbeat, inside the node's heartbeat transaction: the service is alive at `now`. */
export async function markServiceAlive(tx: Tx, now: number): Promise<void> {
  await tx
    .insertInto('service_liveness')
    .values({ id: 1, alive_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ alive_at: eb.fn('greatest', ['service_liveness.alive_at', 'excluded.alive_at']) })))
    .execute();
}

/**
 * A node starting: records the outage that ended now if the service was last alive more than
 * `gapMs` ago, and marks it alive, in one transaction on the liveness row (two nodes starting
 * together record the outage once). A store that never saw the service alive records nothing.
 */
export async function noteServiceStart(tx: Tx, now: number, gapMs: number): Promise<ServiceOutage | null> {
  const last = await tx.selectFrom('service_liveness').select('alive_at').where('id', '=', 1).forUpdate().executeTakeFirst();
  let outage: ServiceOutage | null = null;
  if (last && now - last.alive_at > gapMs) {
    outage = { startedAt: last.alive_at, endedAt: now };
    await tx.insertInto('service_outages').values({ started_at: outage.startedAt, ended_at: outage.endedAt }).onConflict((oc) => oc.doNothing()).execute();
  }
  await markServiceAlive(tx, now);
  return outage;
}

/** True when an outage overlapped the span [from, to] (ms). */
export async function outageDuring(db: Reader, from: number, to: number): Promise<boolean> {
  const row = await db.selectFrom('service_outages').select('started_at').where('started_at', '<', to).where('ended_at', '>', from).limit(1).executeTakeFirst();
  return row !== undefined;
}
