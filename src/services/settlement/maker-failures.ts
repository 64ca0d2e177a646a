/**
 * Maker accountability: a winning maker that does not settle (permit2) or deliver (promised) in
 * time, or relays its permit2 settlement late (late-relay.ts), is recorded once per quote; `makerFailureThreshold` failures within
 * `makerFailureWindowMs` suspend it from quoting for `makerSuspensionBaseMs * 2^k`, k being how
 * often it was suspended before. Failures from before the latest suspension began do not count
 * again, so lifting a suspension gives the maker a clean window. The quote path refuses a maker
 * while `suspended_until` is in the future (maker-access.ts and the quote statement).
 */
import { insertMakerFailure, lockMakerSuspensionState, countMakerFailuresSince, suspendMaker } from '../../store/maker-suspensions.ts';
import { readSettings } from '../../store/settings.ts';
import type { Tx } from '../../store/transaction.ts';

/** Operator lift: the maker may quote again at once; the doubling count is kept. */
export { liftMakerSuspension as liftSuspension } from '../../store/maker-suspensions.ts';

export interface MakerFailure {
  makerId: string;
  rfqId: string;
  quoteId: string;
  /** Why, for the operator: `notSettled`, `notDelivered`, `lateRelay` ... */
  reason: string;
  at: number;
  /** A late relay's delay after the selection, in ms. */
  delayMs?: number;
}

export interface FailureOutcome {
  /** False when this quote's failure was already recorded. */
  recorded: boolean;
  /** Set when this failure suspended the maker. */
  suspendedUntil: number | null;
}

/** Records a failure inside the caller's transaction (idempotent per quote) and suspends when due. */
export async function recordMakerFailure(tx: Tx, failure: MakerFailure): Promise<FailureOutcome> {
  const inserted = await insertMakerFailure(tx, { quoteId: failure.quoteId, makerId: failure.makerId, rfqId: failure.rfqId, reason: failure.reason, at: failure.at, delayMs: failure.delayMs ?? null });
  if (!inserted) return { recorded: false, suspendedUntil: null };

  // Read in the transaction: the settings cache would need a second connection (PGlite has one).
  const settings = await readSettings(tx);
  // The maker row is the serialisation point: two failures committing at once count each other.
  const maker = await lockMakerSuspensionState(tx, failure.makerId);
  const since = Math.max(failure.at - settings.makerFailureWindowMs, maker.last_suspended_at ?? 0);
  const counted = await countMakerFailuresSince(tx, failure.makerId, since);
  if (settings.makerFailureThreshold <= 0 || counted < settings.makerFailureThreshold) return { recorded: true, suspendedUntil: null };

  const suspendedUntil = failure.at + settings.makerSuspensionBaseMs * 2 ** maker.suspension_count;
  await suspendMaker(tx, failure.makerId, { until: suspendedUntil, count: maker.suspension_count + 1, at: failure.at });
  return { recorded: true, suspendedUntil };
}
