/**
 * Selection by the taker's accept (the auction close selects in batches, close-auction.ts):
 * inside the caller's transaction (RFQ and its quotes already locked), the taker's pay leg is locked for exactly what the winner
 * costs, the RFQ goes QUOTED, the winner SELECTED (with its settlement fields), every other open
 * quote NOT_SELECTED, and each change is written to the outbox.
 */
import { takerLockAmount, takerPayToken, transitionQuote, transitionRfq, type Instrument, type QuoteStatus, type RfqStatus } from '../../domain/rfq/index.ts';
import { endLock, lockFunds } from '../../store/ledger.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { emitBalances, emitQuoteStatus, emitRfqStatus } from './events.ts';
import { rfqTerms, type QuoteRow, type RfqRow } from './rows.ts';

export interface Selected {
  rfq: RfqRow;
  winner: QuoteRow;
}

export async function selectQuote(
  tx: Tx,
  deps: ServiceDeps,
  selection: { rfq: RfqRow; winner: QuoteRow; quotes: QuoteRow[]; instrument: Instrument; how: 'accept' | 'autoSelect'; now: number },
): Promise<Selected> {
  const { rfq, winner, quotes, instrument, how, now } = selection;
  const terms = rfqTerms(rfq, instrument);
  const nextStatus: RfqStatus = transitionRfq(rfq.status as RfqStatus, how);
  // An autoAccept RFQ locked its bound at submission; the winner may cost less, so re-lock exactly.
  if (rfq.auto_accept) await endLock(tx, 'rfq', rfq.id, 'release', 'selection', now);
  await lockFunds(tx, {
    lockId: deps.ids.uuid(),
    accountId: rfq.account_id,
    token: takerPayToken(terms),
    rail: 'EVM',
    amount: takerLockAmount(terms, { makerReceives: { token: winner.maker_receives_token, amount: winner.maker_receives_amount } }),
    ownerKind: 'rfq',
    ownerId: rfq.id,
    at: now,
  });

  const updatedRfq = await tx
    .updateTable('rfqs')
    .set({ status: nextStatus, quoted_at: now, selected_quote_id: winner.id, updated_at: now })
    .where('id', '=', rfq.id)
    .returningAll()
    .executeTakeFirstOrThrow();

  const gateway = deps.settlement[winner.settlement_mode];
  const fields = gateway ? await gateway.onSelected(tx, { rfq: updatedRfq, quote: winner, instrument, now }) : {};
  const selectedWinner = await tx
    .updateTable('quotes')
    .set({
      status: transitionQuote(winner.status as QuoteStatus, 'select'),
      settlement_deadline_secs: rfq.settlement_deadline_secs,
      updated_at: now,
      ...fields,
    })
    .where('id', '=', winner.id)
    .returningAll()
    .executeTakeFirstOrThrow();

  await emitRfqStatus(tx, updatedRfq, instrument, now);
  await emitQuoteStatus(tx, selectedWinner, updatedRfq, instrument, now);
  const losers = quotes.filter((q) => q.id !== winner.id && q.status === 'SUBMITTED').map((q) => q.id);
  if (losers.length > 0) {
    const updated = await tx
      .updateTable('quotes')
      .set({ status: transitionQuote('SUBMITTED', 'notSelect'), updated_at: now })
      .where('id', 'in', losers)
      .returningAll()
      .execute();
    for (const loser of updated.sort((a, b) => (a.id < b.id ? -1 : 1))) await emitQuoteStatus(tx, loser, updatedRfq, instrument, now);
  }
  await emitBalances(tx, deps, rfq.account_id, now);
  return { rfq: updatedRfq, winner: selectedWinner };
}
