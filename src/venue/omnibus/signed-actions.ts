/**
 * Signed venue actions: each signer's nonces come from one persisted allocator (strictly
 * increasing, at least the clock), and every signed request is stored before it is sent
 * (src/services/v0/venue-actions.ts), so a resend after a crash or a lost answer reuses exactly
 * the same bytes.
 */
import { sql } from 'kysely';
import type { Db, Reader } from '../../store/transaction.ts';
import { VenueUnavailableError } from '../../services/v0/venue-port.ts';
import { recordActionAnswer, recordActionSent } from '../../services/v0/venue-actions.ts';
import type { VenueExchangeReply, VenueHttp } from './venue-http.ts';

/**
 * Reserves the next `count` nonces of `signer` and returns the first: the block starts at
 * max(now, last + 1) and the allocator keeps its end, persisted by one statement (atomic on its
 * own, so no transaction: one round trip, the allocator's row held only for that statement).
 */
export async function allocateNonces(db: Reader, signer: string, nowMs: number, count = 1): Promise<number> {
  const result = await sql<{ last_nonce: string }>`
    insert into venue_signer_nonces (signer, last_nonce) values (${signer}, ${nowMs + count - 1})
    on conflict (signer) do update set last_nonce = greatest(venue_signer_nonces.last_nonce + ${count}::int8, ${nowMs + count - 1}::int8)
    returning last_nonce
  `.execute(db);
  return Number(result.rows[0]!.last_nonce) - count + 1;
}

export type SendOutcome = { answered: true; reply: VenueExchangeReply } | { answered: false; error: string };

/** Sends a stored action's exact request; records the answer (or the attempt when none came). */
export async function sendStoredAction(db: Db, http: VenueHttp, actionId: string, timeoutMs: number, nowMs: () => number): Promise<SendOutcome> {
  const row = await db.selectFrom('venue_actions').select(['request']).where('id', '=', actionId).executeTakeFirstOrThrow();
  await recordActionSent(db, actionId, nowMs());
  const outcome = await postRequest(http, row.request, timeoutMs);
  if (outcome.answered) await recordAnswer(db, actionId, outcome.reply, nowMs());
  return outcome;
}

/** Posts a stored request (already marked `SENT`) as it is; its answer is the caller's to record. */
export async function postRequest(http: VenueHttp, request: unknown, timeoutMs: number): Promise<SendOutcome> {
  try {
    return { answered: true, reply: await http.exchange(request, timeoutMs) };
  } catch (error) {
    if (error instanceof VenueUnavailableError) return { answered: false, error: error.message };
    throw error;
  }
}

/** Records the venue's answer to a stored action (`ACKED`, or `REFUSED` with its message). */
export async function recordAnswer(db: Reader, actionId: string, reply: VenueExchangeReply, nowMs: number): Promise<void> {
  await recordActionAnswer(db, actionId, { refused: reply.status === 'err' || typeof firstError(reply) === 'string', reply }, nowMs);
}

function firstError(reply: VenueExchangeReply): string | undefined {
  if (reply.status === 'err') return String(reply.response);
  const first = reply.response.data?.statuses?.[0];
  return typeof first === 'object' && first !== null && 'error' in first ? String((first as { error: unknown }).error) : undefined;
}
