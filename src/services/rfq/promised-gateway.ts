/**
 * `promised` mode at selection (DESIGN.md section 5): the maker delivers its leg (`makerPays`) to
 * custody first, then the service pays `makerReceives` from custody. The quote carries no permit
 * fields, only its delivery window:
 * - `windowStartsAt` = selection time (ms);
 * - `deliveryDeadline` = the RFQ's `settlementDeadline` (seconds): one deadline per win, the same
 *   inclusive rule as permit2 (a delivery in a block stamped in the deadline second counts);
 * - `windowEndsAt` = `deliveryDeadline * 1000` (ms). Block timestamps are whole seconds, so
 *   "block time <= deliveryDeadline" and "block time in ms <= windowEndsAt" are the same test.
 */
import type { SettlementGateway } from './settlement-gateway.ts';

export const promisedGateway: SettlementGateway = {
  async onSelected(_tx, { rfq, now }) {
    return {
      permit_signature: null,
      spender: null,
      delivery_deadline_secs: rfq.settlement_deadline_secs,
      window_starts_at: now,
      window_ends_at: rfq.settlement_deadline_secs * 1000,
    };
  },
};

/** Is a delivery mined at `blockTimestampSecs` inside the window? (Starts at the selection's second.) */
export function insideWindow(window: { window_starts_at: number | null; window_ends_at: number | null }, blockTimestampSecs: number): boolean {
  if (window.window_starts_at === null || window.window_ends_at === null) return false;
  return Math.floor(window.window_starts_at / 1000) <= blockTimestampSecs && blockTimestampSecs * 1000 <= window.window_ends_at;
}
