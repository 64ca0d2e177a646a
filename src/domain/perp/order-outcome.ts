/**
 * What a venue reply to a single `order` action means for the execution (DESIGN.md 9.3 steps 4
 * and 6). The venue answers `{ status: "ok", response: { type: "order", data: { statuses: [s] } } }`
 * with `s` one of `{ resting: { oid } }`, `{ filled: { totalSz, avgPx, oid } }` or
 * `{ error: "..." }`, and `{ status: "err", response: "..." }` when the whole action is refused.
 * Anything else (no reply, a timeout, a reset, a shape we do not know) is `unclear`: the order may
 * or may not be on the venue, and only a look-up by its cloid can tell.
 */

import { orderPartFilled } from './fills.ts';
import { VENUE_NONCE_PAST_MS } from './types.ts';

export type OrderOutcome =
  | { kind: 'resting'; oid: number | null }
  | { kind: 'filled'; oid: number | null; totalSz: string; avgPx: string }
  | { kind: 'refused'; message: string }
  | { kind: 'unclear'; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function oidOf(value: Record<string, unknown>): number | null {
  return typeof value['oid'] === 'number' ? value['oid'] : null;
}

/** Classifies the reply body of a one-order `order` action. */
export function orderOutcome(reply: unknown): OrderOutcome {
  if (!isRecord(reply)) return { kind: 'unclear', message: 'reply is not an object' };
  if (reply['status'] === 'err') {
    return { kind: 'refused', message: typeof reply['response'] === 'string' ? reply['response'] : JSON.stringify(reply['response']) };
  }
  if (reply['status'] !== 'ok' || !isRecord(reply['response'])) return { kind: 'unclear', message: 'unknown reply shape' };
  const data = reply['response']['data'];
  const statuses = isRecord(data) ? data['statuses'] : undefined;
  if (!Array.isArray(statuses) || statuses.length !== 1) return { kind: 'unclear', message: 'reply does not carry exactly one order status' };
  const status: unknown = statuses[0];
  if (typeof status === 'string') return { kind: 'unclear', message: status };
  if (!isRecord(status)) return { kind: 'unclear', message: 'order status is not an object' };
  if (typeof status['error'] === 'string') return { kind: 'refused', message: status['error'] };
  if (isRecord(status['resting'])) return { kind: 'resting', oid: oidOf(status['resting']) };
  const filled = status['filled'];
  if (isRecord(filled) && typeof filled['totalSz'] === 'string' && typeof filled['avgPx'] === 'string') {
    return { kind: 'filled', oid: oidOf(filled), totalSz: filled['totalSz'], avgPx: filled['avgPx'] };
  }
  return { kind: 'unclear', message: 'unknown order status' };
}

/**
 * A refusal of the maker's order that is the maker's doing (DESIGN.md 9.3 step 4): its nonce is no
 * longer acceptable, its margin is short, its signer is unknown or expired, or its resting order
 * would cross. These count toward the maker's suspension; anything else (the venue down, a rule
 * every order would break) does not.
 */
export function isMakerFault(message: string): boolean {
  const m = message.toLowerCase();
  return (
    m.includes('nonce') ||
    m.includes('margin') ||
    m.includes('does not exist') ||
    m.includes('would have immediately matched') ||
    m.includes('agent') ||
    m.includes('expired')
  );
}

/**
 * `Invalid nonce: duplicate nonce`: the venue has seen this signer's nonce. The same signed bytes
 * may have been sent before (the taker and the maker hold them), so the refusal says nothing about
 * whether the order was placed: only a look-up by its cloid does.
 */
export function isDuplicateNonce(message: string): boolean {
  return message.toLowerCase().includes('duplicate nonce');
}

/**
 * The venue's HTTP 422 (a body it could not read) and 429 (over its request weight) mean it did
 * not place the action: a definite refusal, never an unclear outcome. The adapter turns them into
 * this whole-request refusal so that every caller reads them as one.
 */
export function httpRefusal(status: number, body: string): { status: 'err'; response: string } {
  return { status: 'err', response: `HTTP ${status}: ${body.slice(0, 200)}` };
}

/** The venue's answer that it knows no order by that oid or cloid. */
export function isUnknownOid(reply: unknown): boolean {
  return isRecord(reply) && reply['status'] === 'unknownOid';
}

/** A pre-signed action whose nonce the venue would refuse for its age at `now` (one day: types.ts). */
export function nonceExpired(nonce: number, now: number): boolean {
  return nonce <= now - VENUE_NONCE_PAST_MS;
}

/** Statuses of `/exchange` that are refusals of the request, not an unknown outcome. */
export const REFUSING_HTTP_STATUSES: readonly number[] = [422, 429];

/** The taker's order was refused because its builder fee exceeds the main wallet's approval. */
export function isBuilderFeeRefusal(message: string): boolean {
  return message.toLowerCase().includes('builder fee');
}

/**
 * The venue's answer to a cancel that finds nothing to cancel ("Order was never placed, already
 * canceled, or filled") is success for clean-up: nothing of the maker's order is left on the book.
 */
export function cancelSucceeded(reply: unknown): boolean {
  if (!isRecord(reply) || reply['status'] !== 'ok') return false;
  const response = reply['response'];
  const data = isRecord(response) ? response['data'] : undefined;
  const statuses = isRecord(data) ? data['statuses'] : undefined;
  if (!Array.isArray(statuses) || statuses.length !== 1) return false;
  const status: unknown = statuses[0];
  if (status === 'success') return true;
  return isRecord(status) && typeof status['error'] === 'string' && status['error'].toLowerCase().includes('never placed');
}

/** What `orderStatus` (by cloid) says about an order, reduced to what resolution needs. */
export type LookedUpOrder =
  /** The venue does not know the cloid (or answered nothing usable). */
  | { kind: 'unknown' }
  /** Still on the book. */
  | { kind: 'open' }
  /**
   * Ended: filled in full, or IOC-cancelled / rejected with whatever part filled (may be none).
   * `filled`: the venue's own record says some of it filled (status `filled`, or a remaining size
   * below the original), so its fills exist even when a read does not show them yet.
   */
  | { kind: 'ended'; status: string; filled: boolean };

/** Classifies an `orderStatus` info reply: `{ status: "order", order: { order, status } }` or `{ status: "unknownOid" }`. */
export function lookedUpOrder(reply: unknown): LookedUpOrder {
  if (!isRecord(reply) || reply['status'] !== 'order' || !isRecord(reply['order'])) return { kind: 'unknown' };
  const status = reply['order']['status'];
  if (typeof status !== 'string') return { kind: 'unknown' };
  if (status === 'open' || status === 'triggered') return { kind: 'open' };
  const order = reply['order']['order'];
  const sizes = isRecord(order) && typeof order['origSz'] === 'string' && typeof order['sz'] === 'string' ? { origSz: order['origSz'], sz: order['sz'] } : null;
  let partFilled = false;
  try {
    partFilled = sizes !== null && orderPartFilled(sizes.origSz, sizes.sz);
  } catch {
    // Unreadable sizes say nothing; the status still may.
  }
  return { kind: 'ended', status, filled: status === 'filled' || partFilled };
}

/** One fill of the user's, as `userFills`/`userFillsByTime` report it. */
export interface VenueFill {
  cloid?: string | null;
  oid: number;
  px: string;
  sz: string;
}

export function isVenueFill(value: unknown): value is VenueFill {
  return isRecord(value) && typeof value['px'] === 'string' && typeof value['sz'] === 'string' && typeof value['oid'] === 'number';
}
