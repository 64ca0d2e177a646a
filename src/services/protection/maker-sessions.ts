/**
 * Cancel on disconnect (DESIGN.md section 11): the maker sessions of every node, kept in the store
 * with a heartbeat per node, so whichever node is alive can tell when a maker's last session that
 * asked for it has ended, closed on either side or lost with its node, and cancel the maker's
 * `SUBMITTED` quotes on open RFQs as by its own cancel (cancel-open-quotes.ts). A `SELECTED`
 * quote is never touched: the cancel's own transition refuses it.
 */
import type { Db, Reader } from '../../store/transaction.ts';
import {
  deleteEndedSessions,
  endNode,
  endSessions,
  endSilentNodes,
  insertMakerSession,
  liveSessionsOfMaker,
  makersWithEndedSessions,
  rewriteLiveSessions,
  writeNodeHeartbeat,
  type MakerSessionRow,
} from '../../store/maker-sessions.ts';
import { openQuoteIdsReceivedBy } from '../../store/open-quotes.ts';
import type { ServiceDeps } from '../deps.ts';
import { cancelOpenQuotes } from './cancel-open-quotes.ts';
import { markServiceAlive } from '../settlement/service-outages.ts';

export interface MakerSession {
  sessionId: string;
  makerAccountId: string;
  cancelOnDisconnect: boolean;
  openedAt: number;
}

/** Makers whose ended sessions one sweep settles at most; the next sweep takes the rest. */
const SWEEP_MAKERS = 100;

const sessionRow = (nodeId: string, s: MakerSession): MakerSessionRow => ({ session_id: s.sessionId, node_id: nodeId, maker_account_id: s.makerAccountId, cancel_on_disconnect: s.cancelOnDisconnect, opened_at: s.openedAt });

/**
 * The node's heartbeat, and its live sessions written again: a node the others took for dead
 * (a pause longer than the timeout) registers its surviving sessions anew. The service's own
 * liveness moves with it (service-outages.ts).
 */
export async function heartbeat(db: Db, nodeId: string, sessions: MakerSession[], now: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await markServiceAlive(tx, now);
    await writeNodeHeartbeat(tx, nodeId, now);
    if (sessions.length === 0) return;
    await rewriteLiveSessions(tx, sessions.map((s) => sessionRow(nodeId, s)));
  });
}

export async function openMakerSession(db: Db, nodeId: string, session: MakerSession): Promise<void> {
  await insertMakerSession(db, sessionRow(nodeId, session));
}

export async function endMakerSessions(db: Db, sessionIds: string[], now: number): Promise<void> {
  if (sessionIds.length === 0) return;
  await endSessions(db, sessionIds, now);
}

/** A node leaving cleanly: its heartbeat goes, so nothing waits for the timeout. */
export async function leaveNode(db: Db, nodeId: string, now: number): Promise<void> {
  await endNode(db, nodeId, now);
}

/**
 * One round, on any node: sessions of nodes without a heartbeat within `timeoutMs` end; then each
 * maker with ended sessions either still holds a live flagged session (nothing to cancel) or not
 * (its quotes received up to its last session's end are cancelled). Ended rows go once settled.
 * Returns the quotes cancelled.
 */
export async function sweepDisconnectedMakers(deps: ServiceDeps, timeoutMs: number): Promise<number> {
  const now = deps.clock.now();
  const alive = now - timeoutMs;
  await endSilentNodes(deps.db, alive, now);
  const makers = await makersWithEndedSessions(deps.db, SWEEP_MAKERS);
  let cancelled = 0;
  for (const maker of makers) {
    const cutoff = Number(maker.cutoff);
    if (maker.flagged && !maker.live) {
      const open = await openQuoteIdsReceivedBy(deps.db, maker.maker_account_id, cutoff);
      cancelled += await cancelOpenQuotes(deps, open.map((id) => ({ id, makerAccountId: maker.maker_account_id })));
    }
    await deleteEndedSessions(deps.db, maker.maker_account_id, cutoff);
  }
  return cancelled;
}

export interface LiveSessionView {
  sessionId: string;
  nodeId: string;
  cancelOnDisconnect: boolean;
  openedAt: number;
  /** The node's last heartbeat: a node silent past the timeout has its sessions ended by the next sweep. */
  nodeHeartbeatAt: number | null;
}

/** The maker's sessions not yet ended, on whichever node (operator view). */
export async function liveMakerSessions(db: Reader, makerAccountId: string): Promise<LiveSessionView[]> {
  const rows = await liveSessionsOfMaker(db, makerAccountId);
  return rows.map((r) => ({ sessionId: r.session_id, nodeId: r.node_id, cancelOnDisconnect: r.cancel_on_disconnect, openedAt: r.opened_at, nodeHeartbeatAt: r.heartbeat_at }));
}
