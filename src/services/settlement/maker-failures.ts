/**
 * Maker accountability: a winning maker that does not settle (permit2) or deliver (promised) in
 * time, or relays its permit2 settlement late (late-relay.ts), is recorded once per quote; `makerFailureThreshold` failures within
 * `makerFailureWindowMs` suspend it from quoting for `makerSuspensionBaseMs * 2^k`, k being how
 * often it was suspended before. Failures from before the latest suspension began do not count
 * again, so lifting a suspension gives the maker a clean window. The quote path refuses a maker
 * while `suspended_until` is in the future (maker-access.ts and the quote statement).
 */
import { sql } from 'kysely';
import type { Tx } from '../../store/transaction.ts';
import { readSettings } from '../../store/settings.ts';

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
  const inserted = await tx
    .insertInto('maker_failures')
    .values({ quote_id: failure.quoteId, maker_id: failure.makerId, rfq_id: failure.rfqId, reason: failure.reason, created_at: failure.at, delay_ms: failure.delayMs ?? null })
    .onConflict((oc) => oc.column('quote_id').doNothing())
    .returning('quote_id')
    .executeTakeFirst();
  if (!inserted) return { recorded: false, suspendedUntil: null };

  // Read in the transaction: the settings cache would need a second connection (PGlite has one).
  const settings = await readSettings(tx);
  // The maker row is the serialisation point: two failures committing at once count each other.
  const maker = await tx.selectFrom('makers').select(['suspension_count', 'last_suspended_at']).where('maker_id', '=', failure.makerId).forUpdate().executeTakeFirstOrThrow();
  const since = Math.max(failure.at - settings.makerFailureWindowMs, maker.last_suspended_at ?? 0);
  const counted = await tx
    .selectFrom('maker_failures')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('maker_id', '=', failure.makerId)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  if (settings.makerFailureThreshold <= 0 || counted.n < settings.makerFailureThreshold) return { recorded: true, suspendedUntil: null };

  const suspendedUntil = failure.at + settings.makerSuspensionBaseMs * 2 ** maker.suspension_count;
  await tx
    .updateTable('makers')
    .set({ suspended_until: suspendedUntil, last_suspended_at: failure.at, suspension_count: maker.suspension_count + 1, updated_at: failure.at })
    .where('maker_id', '=', failure.makerId)
    .execute();
  return { recorded: true, suspendedUntil };
}

/** Operator lift: the maker may quote again at once; the doubling count is kept. */
export async function liftSuspension(tx: Tx, makerId: string, at: number): Promise<void> {
  await tx.updateTable('makers').set({ suspended_until: null, updated_at: at }).where('maker_id', '=', makerId).execute();
}
