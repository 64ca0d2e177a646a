/**
 * The outbox frames each RFQ transition produces (spec, "Which operation produces which
 * event"), written in the committing transaction.
 */
import { appendEvent } from '../../store/outbox.ts';
import type { Tx } from '../../store/transaction.ts';
import type { Instrument } from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { balanceSnapshotFrame } from '../account/balances.ts';
import type { QuoteRow, RfqRow } from './rows.ts';
import { makerQuoteView, openRfqView, quoteView, rfqView } from './views.ts';

export async function emitRfqStatus(tx: Tx, rfq: RfqRow, instrument: Instrument, at: number): Promise<void> {
  await appendEvent(tx, { accountId: rfq.account_id, topic: 'rfqStatus', frame: { kind: 'rfqStatus', ...rfqView(rfq, instrument) } }, at);
}

export async function emitOpenRfq(tx: Tx, rfq: RfqRow, instrument: Instrument, at: number): Promise<void> {
  await appendEvent(tx, { accountId: null, topic: 'openRfqs', frame: { kind: 'rfq', ...openRfqView(rfq, instrument) } }, at);
}

export async function emitQuoteUpdate(tx: Tx, quote: QuoteRow, rfq: RfqRow, instrument: Instrument, at: number): Promise<void> {
  await appendEvent(tx, { accountId: rfq.account_id, topic: 'quotes', frame: { kind: 'quoteUpdate', ...quoteView(quote, rfq, instrument) } }, at);
}

export async function emitQuoteStatus(tx: Tx, quote: QuoteRow, rfq: RfqRow, instrument: Instrument, at: number): Promise<void> {
  await appendEvent(tx, { accountId: quote.maker_account_id, topic: 'quoteStatus', frame: { kind: 'quoteStatus', ...makerQuoteView(quote, rfq, instrument) } }, at);
}

export async function emitBalances(tx: Tx, deps: ServiceDeps, accountId: string, at: number): Promise<void> {
  await appendEvent(tx, { accountId, topic: 'balances', frame: await balanceSnapshotFrame(tx, deps, accountId) }, at);
}
