/**
 * Cancel on disconnect (DESIGN.md section 11): the maker sessions of every node, kept in the store
 * with a heartbeat per node, so whichever node is alive can tell when a maker's last session that
 * asked for it has ended, closed on either side or lost with its node, and cancel the maker's
 * `SUBMITTED` quotes on open RFQs as by its own cancel (cancel-open-quotes.ts). A `SELECTED`
 * quote is never touched: the cancel's own transition refuses it.
 */
import { sql } from 'kysely';
import type { Db, Reader } from '../../store/transaction.ts';
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

/**
 * The node's heartbeat, and its live sessions written again: a node the others took for dead
 * (a pause longer than the timeout) registers its surviving sessions anew. The service's own
 * liveness moves with it (service-outages.ts).
 */
export async function heartbeat(db: Db, nodeId: string, sessions: MakerSession[], now: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await markServiceAlive(tx, now);
    await tx.insertInto('ws_nodes').values({ node_id: nodeId, heartbeat_at: now }).onConflict((oc) => oc.column('node_id').doUpdateSet({ heartbeat_at: now })).execute();
    if (sessions.length === 0) return;
    await tx
      .insertInto('maker_sessions')
      .values(sessions.map((s) => ({ session_id: s.sessionId, node_id: nodeId, maker_account_id: s.makerAccountId, cancel_on_disconnect: s.cancelOnDisconnect, opened_at: s.openedAt, ended_at: null })))
      .onConflict((oc) => oc.column('session_id').doUpdateSet({ ended_at: null }))
      .execute();
  });
}

export async function openMakerSession(db: Db, nodeId: string, session: MakerSession): Promise<void> {
  await db
    .insertInto('maker_sessions')
    .values({ session_id: session.sessionId, node_id: nodeId, maker_account_id: session.makerAccountId, cancel_on_disconnect: session.cancelOnDisconnect, opened_at: session.openedAt, ended_at: null })
    .execute();
}

export async function endMakerSessions(db: Db, sessionIds: string[], now: number): Promise<void> {
  if (sessionIds.length === 0) return;
  await db.updateTable('maker_sessions').set({ ended_at: now }).where('session_id', 'in', sessionIds).where('ended_at', 'is', null).execute();
}

/** A node leaving cleanly: its heartbeat goes, so nothing waits for the timeout. */
export async function leaveNode(db: Db, nodeId: string, now: number): Promise<void> {
  await db.updateTable('maker_sessions').set({ ended_at: now }).where('node_id', '=', nodeId).where('ended_at', 'is', null).execute();
  await db.deleteFrom('ws_nodes').where('node_id', '=', nodeId).execute();
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
  await sql`
    update maker_sessions s set ended_at = ${now}
    where s.ended_at is null
      and not exists (select 1 from ws_nodes n where n.node_id = s.node_id and n.heartbeat_at >= ${alive})
  `.execute(deps.db);
  await sql`
    delete from ws_nodes n where n.heartbeat_at < ${alive}
      and not exists (select 1 from maker_sessions s where s.node_id = n.node_id and s.ended_at is null)
  `.execute(deps.db);
  const makers = await sql<{ maker_account_id: string; cutoff: number; flagged: boolean; live: boolean }>`
    select s.maker_account_id, max(s.ended_at) as cutoff, bool_or(s.cancel_on_disconnect) as flagged,
      exists (select 1 from maker_sessions l where l.maker_account_id = s.maker_account_id and l.ended_at is null and l.cancel_on_disconnect) as live
    from maker_sessions s
    where s.ended_at is not null
    group by s.maker_account_id
    order by s.maker_account_id
    limit ${SWEEP_MAKERS}
  `.execute(deps.db);
  let cancelled = 0;
  for (const maker of makers.rows) {
    const cutoff = Number(maker.cutoff);
    if (maker.flagged && !maker.live) {
      const open = await sql<{ id: string }>`
        select q.id from quotes q join rfqs r on r.id = q.rfq_id and r.status = 'PENDING'
        where q.maker_account_id = ${maker.maker_account_id} and q.status = 'SUBMITTED' and q.received_at <= ${cutoff}
        order by q.id
      `.execute(deps.db);
      cancelled += await cancelOpenQuotes(deps, open.rows.map((q) => ({ id: q.id, makerAccountId: maker.maker_account_id })));
    }
    await deps.db.deleteFrom('maker_sessions').where('maker_account_id', '=', maker.maker_account_id).where('ended_at', '<=', cutoff).execute();
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
  const rows = await db
    .selectFrom('maker_sessions as s')
    .leftJoin('ws_nodes as n', 'n.node_id', 's.node_id')
    .select(['s.session_id', 's.node_id', 's.cancel_on_disconnect', 's.opened_at', 'n.heartbeat_at'])
    .where('s.maker_account_id', '=', makerAccountId)
    .where('s.ended_at', 'is', null)
    .orderBy('s.opened_at')
    .orderBy('s.session_id')
    .execute();
  return rows.map((r) => ({ sessionId: r.session_id, nodeId: r.node_id, cancelOnDisconnect: r.cancel_on_disconnect, openedAt: r.opened_at, nodeHeartbeatAt: r.heartbeat_at }));
}
