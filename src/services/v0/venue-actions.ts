/**
 * The omnibus worker's use cases for its signed venue actions: each is stored before it is sent
 * and moves along its state machine (src/domain/venue/venue-action-status.ts) through its one
 * status writer. The worker (src/venue/omnibus) signs, sends and reads the venue's answers; it
 * writes no action row itself.
 */
import { venueActionTransition, type StoredVenueActionStatus } from '../../domain/venue/venue-action-status.ts';
import { ONE_MORE_SEND } from '../../store/status-change.ts';
import { insertVenueActionUnlessOwned } from '../../store/venue-action-rows.ts';
import type { Reader } from '../../store/transaction.ts';
import { writeVenueActionStatusIfStill } from '../../store/venue-action-status.ts';

export interface StoredAction {
  id: string;
  signer: string;
  nonce: number;
  kind: 'order' | 'cancel' | 'spotSend';
  ownerId: string;
  request: Record<string, unknown>;
}

/**
 * Stores a signed request (one statement) unless its owner already has one of that kind (then
 * false: nothing is stored and the caller sends nothing). `SIGNED` leaves it to the next pass's sends; `SENT`
 * (send_attempts 1) is for a caller that sends it right after this commits: stored before sent
 * as ever, and a crash before the send leaves an order the reconciler finds unknown to the venue
 * by its cloid and resends (same bytes) — exactly what it does for a send that got no answer.
 */
export async function storeSignedAction(db: Reader, action: StoredAction, nowMs: number, status: StoredVenueActionStatus = 'SIGNED'): Promise<boolean> {
  return insertVenueActionUnlessOwned(db, { id: action.id, signer: action.signer, nonce: action.nonce, kind: action.kind, owner_id: action.ownerId, request: JSON.stringify(action.request), status, send_attempts: status === 'SENT' ? 1 : 0, response: null, created_at: nowMs, updated_at: nowMs });
}

/** SIGNED | SENT -> SENT, counted, just before its request goes out; an action already answered is left as it is. */
export async function recordActionSent(db: Reader, actionId: string, nowMs: number): Promise<void> {
  await writeVenueActionStatusIfStill(db, { id: actionId, ...venueActionTransition('send'), fields: { send_attempts: ONE_MORE_SEND } }, nowMs);
}

/** SENT -> REFUSED (the venue answered with an error) or ACKED, with the venue's answer as it came. */
export async function recordActionAnswer(db: Reader, actionId: string, answer: { refused: boolean; reply: unknown }, nowMs: number): Promise<void> {
  await writeVenueActionStatusIfStill(db, { id: actionId, ...venueActionTransition(answer.refused ? 'refuse' : 'acknowledge'), fields: { response: JSON.stringify(answer.reply) } }, nowMs);
}

/** SENT -> ACKED without an answer: the venue knows the order by its client id, so the send did arrive. */
export async function recordActionKnown(db: Reader, actionId: string, nowMs: number): Promise<void> {
  await writeVenueActionStatusIfStill(db, { id: actionId, ...venueActionTransition('acknowledge') }, nowMs);
}
