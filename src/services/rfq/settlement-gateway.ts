/**
 * The boundary between selection and settlement. At selection the winning quote is handed to the
 * gateway of its settlement mode, inside the selecting transaction, which returns the fields the
 * maker needs (permit signature, spender, delivery window). Without a gateway for the mode the
 * quote carries none and the RFQ fails at `settlementDeadline` (settle-expiry.ts).
 */
import type { Instrument } from '../../domain/rfq/index.ts';
import type { Tx } from '../../store/transaction.ts';
import type { QuoteRow, RfqRow } from './rows.ts';

export interface SelectionFields {
  permit_signature?: string | null;
  spender?: string | null;
  delivery_deadline_secs?: number | null;
  window_starts_at?: number | null;
  window_ends_at?: number | null;
}

export interface SettlementGateway {
  onSelected(tx: Tx, selection: { rfq: RfqRow; quote: QuoteRow; instrument: Instrument; now: number }): Promise<SelectionFields>;
}

export type SettlementGateways = Partial<Record<string, SettlementGateway>>;
