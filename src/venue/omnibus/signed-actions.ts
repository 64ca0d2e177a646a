/**
 * Signed venue actions: each signer's nonces come from one persisted allocator (strictly
 * increasing, at least the clock), and every signed request is stored before it is sent, so a
 * resend after a crash or a lost answer reuses exactly the same bytes.
 */
import { sql } from 'kysely';
import type { Db, Tx } from '../../store/transaction.ts';
import { VenueUnavailableError } from '../../services/v0/venue-port.ts';
import type { VenueExchangeReply, VenueHttp } from './venue-http.ts';

/** The next nonce of `signer`: max(now, last + 1), persisted in the caller's transaction. */
export async function allocateNonce(tx: Tx, signer: string, nowMs: number): Promise<number> {
  const result = await sql<{ last_nonce: string }>`
    insert into venue_signer_nonces (signer, last_nonce) values (${signer}, ${nowMs})
    on conflict (signer) do update set last_nonce = greatest(venue_signer_nonces.last_nonce + 1, ${nowMs})
    returning last_nonce
  `.execute(tx);
  return Number(result.rows[0]!.last_nonce);
}

export interface StoredAction {
  id: string;
  signer: string;
  nonce: number;
  kind: 'order' | 'cancel' | 'spotSend';
  ownerId: string;
  request: Record<string, unknown>;
}

export async function storeSignedAction(tx: Tx, action: StoredAction, nowMs: number): Promise<void> {
  await tx
    .insertInto('venue_actions')
    .values({ id: action.id, signer: action.signer, nonce: action.nonce, kind: action.kind, owner_id: action.ownerId, request: JSON.stringify(action.request), status: 'SIGNED', response: null, created_at: nowMs, updated_at: nowMs })
    .execute();
}

export type SendOutcome = { answered: true; reply: VenueExchangeReply } | { answered: false; error: string };

/** Sends a stored action's exact request; records the answer (or the attempt when none came). */
export async function sendStoredAction(db: Db, http: VenueHttp, actionId: string, timeoutMs: number, nowMs: () => number): Promise<SendOutcome> {
  const row = await db.selectFrom('venue_actions').select(['request']).where('id', '=', actionId).executeTakeFirstOrThrow();
  await db.updateTable('venue_actions').set({ status: 'SENT', send_attempts: sql`send_attempts + 1`, updated_at: nowMs() }).where('id', '=', actionId).where('status', 'in', ['SIGNED', 'SENT']).execute();
  try {
    const reply = await http.exchange(row.request, timeoutMs);
    const refused = reply.status === 'err' || (typeof firstError(reply) === 'string');
    await db.updateTable('venue_actions').set({ status: refused ? 'REFUSED' : 'ACKED', response: JSON.stringify(reply), updated_at: nowMs() }).where('id', '=', actionId).execute();
    return { answered: true, reply };
  } catch (error) {
    if (error instanceof VenueUnavailableError) return { answered: false, error: error.message };
    throw error;
  }
}

function firstError(reply: VenueExchangeReply): string | undefined {
  if (reply.status === 'err') return String(reply.response);
  const first = reply.response.data?.statuses?.[0];
  return typeof first === 'object' && first !== null && 'error' in first ? String((first as { error: unknown }).error) : undefined;
}
