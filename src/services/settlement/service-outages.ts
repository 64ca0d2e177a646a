/**
 * Service outages: spans in which no node of the service was alive, so no maker could relay a
 * permit (or call anything). Every node's heartbeat moves `service_liveness.alive_at` forward; the
 * first node to start after a gap longer than two beat intervals (presence.ts) records the gap in
 * `service_outages`, whatever ended it (a crash, or every node stopped cleanly). The settlement
 * expiry does not count a permit2 maker's failure against it when its settlement window overlapped
 * an outage (expire-settlement.ts): the service, not the maker, was missing. The funds and the RFQ
 * end exactly as before; only the maker's record changes.
 */
import { insertServiceOutage, lockLastAlive, markServiceAlive } from '../../store/service-liveness.ts';
import type { Tx } from '../../store/transaction.ts';

export { markServiceAlive, outageDuring } from '../../store/service-liveness.ts';

export interface ServiceOutage {
  startedAt: number;
  endedAt: number;
}

/**
 * A node starting: records the outage that ended now if the service was last alive more than
 * `gapMs` ago, and marks it alive, in one transaction on the liveness row (two nodes starting
 * together record the outage once). A store that never saw the service alive records nothing.
 */
export async function noteServiceStart(tx: Tx, now: number, gapMs: number): Promise<ServiceOutage | null> {
  const lastAlive = await lockLastAlive(tx);
  let outage: ServiceOutage | null = null;
  if (lastAlive !== null && now - lastAlive > gapMs) {
    outage = { startedAt: lastAlive, endedAt: now };
    await insertServiceOutage(tx, outage);
  }
  await markServiceAlive(tx, now);
  return outage;
}
