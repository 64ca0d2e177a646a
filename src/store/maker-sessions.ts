/**
 * The WebSocket nodes' heartbeats (`ws_nodes`) and the maker sessions they hold
 * (`maker_sessions`), kept so that any live node can tell when a maker's last session asking for
 * cancel on disconnect has ended (src/services/protection/maker-sessions.ts decides what follows).
 */
import { sql } from 'kysely';
import type { MakerSessionsTable } from './schema.ts';
import type { Db, Reader, Tx } from './transaction.ts';

export type MakerSessionRow = Omit<MakerSessionsTable, 'ended_at'>;

const opened = (s: MakerSessionRow): MakerSessionsTable => ({ session_id: s.session_id, node_id: s.node_id, maker_account_id: s.maker_account_id, cancel_on_disconnect: s.cancel_on_disconnect, opened_at: s.opened_at, ended_at: null });

/** The node's heartbeat at `now`. */
export async function writeNodeHeartbeat(tx: Tx, nodeId: string, now: number): Promise<void> {
  await tx.insertInto('ws_nodes').values({ node_id: nodeId, heartbeat_at: now }).onConflict((oc) => oc.column('node_id').doUpdateSet({ heartbeat_at: now })).execute();
}

/** Writes the node's live sessions again, un-ending any a sweep ended while the node was taken for dead. */
export async function rewriteLiveSessions(tx: Tx, sessions: readonly MakerSessionRow[]): Promise<void> {
  await tx
    .insertInto('maker_sessions')
    .values(sessions.map(opened))
    .onConflict((oc) => oc.column('session_id').doUpdateSet({ ended_at: null }))
    .execute();
}

export async function insertMakerSession(db: Db, session: MakerSessionRow): Promise<void> {
  await db.insertInto('maker_sessions').values(opened(session)).execute();
}

/** Ends these sessions at `now`, those not ended already. */
export async function endSessions(db: Db, sessionIds: readonly string[], now: number): Promise<void> {
  await db.updateTable('maker_sessions').set({ ended_at: now }).where('session_id', 'in', [...sessionIds]).where('ended_at', 'is', null).execute();
}

/** A node leaving: its sessions end at `now` and its heartbeat row goes. */
export async function endNode(db: Db, nodeId: string, now: number): Promise<void> {
  await db.updateTable('maker_sessions').set({ ended_at: now }).where('node_id', '=', nodeId).where('ended_at', 'is', null).execute();
  await db.deleteFrom('ws_nodes').where('node_id', '=', nodeId).execute();
}

/**
 * Ends at `now` the sessions of nodes without a heartbeat since `alive`, then deletes those
 * nodes once they hold no live session.
 */
export async function endSilentNodes(db: Db, alive: number, now: number): Promise<void> {
  await sql`
    update maker_sessions s set ended_at = ${now}
    where s.ended_at is null
      and not exists (select 1 from ws_nodes n where n.node_id = s.node_id and n.heartbeat_at >= ${alive})
  `.execute(db);
  await sql`
    delete from ws_nodes n where n.heartbeat_at < ${alive}
      and not exists (select 1 from maker_sessions s where s.node_id = n.node_id and s.ended_at is null)
  `.execute(db);
}

/**
 * Makers with ended sessions, in account order, at most `limit`: the last end (`cutoff`), whether
 * any ended one asked for cancel on disconnect (`flagged`) and whether a live one does (`live`).
 */
export async function makersWithEndedSessions(db: Reader, limit: number): Promise<Array<{ maker_account_id: string; cutoff: number; flagged: boolean; live: boolean }>> {
  const makers = await sql<{ maker_account_id: string; cutoff: number; flagged: boolean; live: boolean }>`
    select s.maker_account_id, max(s.ended_at) as cutoff, bool_or(s.cancel_on_disconnect) as flagged,
      exists (select 1 from maker_sessions l where l.maker_account_id = s.maker_account_id and l.ended_at is null and l.cancel_on_disconnect) as live
    from maker_sessions s
    where s.ended_at is not null
    group by s.maker_account_id
    order by s.maker_account_id
    limit ${limit}
  `.execute(db);
  return makers.rows;
}

/** Deletes the maker's sessions that ended at or before `cutoff` (settled). */
export async function deleteEndedSessions(db: Db, makerAccountId: string, cutoff: number): Promise<void> {
  await db.deleteFrom('maker_sessions').where('maker_account_id', '=', makerAccountId).where('ended_at', '<=', cutoff).execute();
}

/** The maker's sessions not yet ended with their node's last heartbeat, oldest first. */
export async function liveSessionsOfMaker(db: Reader, makerAccountId: string) {
  return db
    .selectFrom('maker_sessions as s')
    .leftJoin('ws_nodes as n', 'n.node_id', 's.node_id')
    .select(['s.session_id', 's.node_id', 's.cancel_on_disconnect', 's.opened_at', 'n.heartbeat_at'])
    .where('s.maker_account_id', '=', makerAccountId)
    .where('s.ended_at', 'is', null)
    .orderBy('s.opened_at')
    .orderBy('s.session_id')
    .execute();
}
