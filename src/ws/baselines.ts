/**
 * Baselines sent right after `subscribed`. Each is read together with the topic's current
 * `seq` in one snapshot, so the session can drop pushed frames the baseline already covers
 * (a change committed just before the read is dispatched just after it).
 */
import type { ServiceDeps } from '../services/deps.ts';
import { balanceSnapshotFrame } from '../services/account/balances.ts';

export interface Baseline {
  /** Last seq of (account, topic) at the snapshot; 0 when the account has no events yet. */
  seq: number;
  frames: Record<string, unknown>[];
}

export async function balancesBaseline(deps: ServiceDeps, accountId: string): Promise<Baseline> {
  // Repeatable read: the balances and the seq come from one snapshot even on a pooled server.
  return deps.db.transaction().setIsolationLevel('repeatable read').execute(async (tx) => {
    const row = await tx.selectFrom('event_seqs').select('last_seq').where('account_id', '=', accountId).where('topic', '=', 'balances').executeTakeFirst();
    const frame = await balanceSnapshotFrame(tx, deps, accountId);
    return { seq: Number(row?.last_seq ?? 0), frames: [frame] };
  });
}
