/**
 * The boundary between selection and settlement. At selection the winning quote is handed to the
 * gateway of its settlement mode, inside the selecting transaction, which returns the fields the
 * maker needs (permit signature, spender, delivery window). The gateway is called with the RFQ and
 * quote rows as locked, just before the selection is written, and its fields are written with the
 * quote's status (one statement per selection or close batch): so it must decide them from what
 * the selection does not change (ids, amounts, tokens, the settlement deadline), never the status. Without a gateway for the mode the
 * quote carries none and the RFQ fails at `settlementDeadline` (expire-settlement.ts).
 */
import type { Instrument } from '../../domain/rfq/index.ts';
import type { Tx } from '../../store/transaction.ts';
import type { QuoteRow, RfqRow } from './rows.ts';

export interface SelectionFields {
  permit_signature?: string | null;
  spender?: string | null;
  /** `keccak256(utf8(quoteId))`, the RfqSettled topic the chain follower finds the quote by. */
  quote_hash?: string | null;
  delivery_deadline_secs?: number | null;
  window_starts_at?: number | null;
  window_ends_at?: number | null;
}

export interface SettlementGateway {
  onSelected(tx: Tx, selection: { rfq: RfqRow; quote: QuoteRow; instrument: Instrument; now: number }): Promise<SelectionFields>;
  /** Refuses (ServiceError) a quote this mode could not settle, before it is written. */
  assertQuotable?(instrument: Instrument): Promise<void>;
  /**
   * True when settlement happens on the chain the node follows: the deadline is then judged on
   * final chain time (the follower's cursor), never the wall clock, because the chain accepts a
   * settlement while `block.timestamp <= settlementDeadline`.
   */
  readonly onChain?: boolean;
}

export type SettlementGateways = Partial<Record<string, SettlementGateway>>;
