/**
 * The numeric columns of the rows the database functions answer as JSON (json-rows.ts), checked
 * against the table types at compile time.
 */
import type { Selectable } from 'kysely';
import type { NumericColumns } from './json-rows.ts';
import type { BalancesTable, QuotesTable, RfqsTable } from './schema.ts';

type RfqRow = Selectable<RfqsTable>;
type QuoteRow = Selectable<QuotesTable>;
type BalanceRow = Selectable<BalancesTable>;

export const RFQ_COLUMNS: NumericColumns<RfqRow> = {
  bigints: { base_qty: true, quote_limit: true, executed_pay_amount: true, executed_recv_amount: true, taker_fee: true, min_fill_qty: true },
  numbers: { taker_fee_tenth_bp: true, created_at: true, auction_ends_at: true, settlement_deadline_secs: true, quoted_at: true, settled_at: true, updated_at: true },
};
export const QUOTE_COLUMNS: NumericColumns<QuoteRow> = {
  bigints: { maker_pays_amount: true, maker_receives_amount: true, taker_fee: true, taker_total: true, selected_qty: true },
  numbers: {
    version: true, received_at: true, acceptable_for_ms: true, settlement_deadline_secs: true, delivery_deadline_secs: true, window_starts_at: true,
    window_ends_at: true, settled_at: true, created_at: true, updated_at: true, position: true, divisible_version: true,
  },
  // Sent as its text (`to_jsonb(q) || jsonb_build_object('xchange', q.xchange::text)`), parsed as the driver parses jsonb.
  json: { xchange: true },
};
export const BALANCE_COLUMNS: NumericColumns<BalanceRow> = { bigints: { available: true, locked: true }, numbers: {} };
