/**
 * Market-maker protection (DESIGN.md section 11), pure: what a selection counts for and when the
 * count trips the setting. "Reach a limit" trips: the selection that brings the count to the
 * limit is the one that trips it.
 */
import type { Instrument, QuoteLegs } from './types.ts';

export type ProtectionReason = 'maxSelectedQuotes' | 'maxSelectedNotional';

export interface ProtectionLimits {
  windowMs: number;
  /** Null: no limit on the number of selections. */
  maxSelectedQuotes: number | null;
  /** Quote-token smallest units; null: no limit on notional. */
  maxSelectedNotional: bigint | null;
}

export interface SelectedInWindow {
  count: number;
  /** Quote-token smallest units. */
  notional: bigint;
}

/** A selected quote's notional: its leg in the instrument's quote token. */
export function quoteNotional(instrument: Pick<Instrument, 'quote'>, legs: QuoteLegs): bigint {
  return legs.makerPays.token === instrument.quote ? legs.makerPays.amount : legs.makerReceives.amount;
}

/**
 * A tripped protection refuses the maker's quotes and selections on its instrument until the
 * maker resets it, whatever its count. Checked inside the database as `rfq_protection_tripped`
 * (src/store/sql/rfq_protection_tripped.sql), held to this one by test/store/sql-checks.test.ts.
 */
export function isProtectionTripped(protection: { triggeredAt: number | null }): boolean {
  return protection.triggeredAt !== null;
}

/** Which limit the selections within the window reached, count first; null while below both. */
export function protectionTrip(limits: ProtectionLimits, selected: SelectedInWindow): ProtectionReason | null {
  if (limits.maxSelectedQuotes !== null && selected.count >= limits.maxSelectedQuotes) return 'maxSelectedQuotes';
  if (limits.maxSelectedNotional !== null && selected.notional >= limits.maxSelectedNotional) return 'maxSelectedNotional';
  return null;
}
