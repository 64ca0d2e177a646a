/**
 * Selection by the taker's accept (the auction close selects in batches, close-auction.ts):
 * inside the caller's transaction (RFQ and its quotes already locked), the taker's pay leg is locked for exactly what the winner
 * costs, the RFQ goes QUOTED, the winner SELECTED (with its settlement fields), every other open
 * quote NOT_SELECTED, and each change is written to the outbox.
 */
import { sql } from 'kysely';
import { takerLockAmount, takerPayToken, transitionQuote, transitionRfq, type Instrument, type RfqStatus } from '../../domain/rfq/index.ts';
import { endLock, lockFunds } from '../../store/ledger.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { emitBalances, emitQuoteStatus, emitRfqStatus } from './events.ts';
import { rfqTerms, type QuoteRow, type RfqRow } from './rows.ts';
import { ServiceError } from '../../domain/errors.ts';
import { SelectionGuard } from '../protection/selection-guard.ts';

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
  const nextStatus: RfqStatus = transitionRfq(rfq.status, how);
  // Market-maker protection: a maker whose protection tripped has its open quotes cancelled; none is selected meanwhile.
  const guard = await SelectionGuard.lock(tx, [{ makerAccountId: winner.maker_account_id, instrumentId: rfq.instrument_id }], now);
  if (!guard.maySelect(winner.maker_account_id, rfq.instrument_id)) {
    throw new ServiceError('QUOTE_NOT_ACCEPTABLE', "the maker's protection withdrew this quote", { reason: 'makerProtection' });
  }
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

  // The new rows follow from the transitions; one statement writes the RFQ, the winner and the
  // losers, and its counts prove every row it was meant to touch was touched.
  const updatedRfq: RfqRow = { ...rfq, status: nextStatus, quoted_at: now, selected_quote_id: winner.id, updated_at: now };
  let selectedWinner: QuoteRow = {
    ...winner,
    status: transitionQuote(winner.status, 'select'),
    settlement_deadline_secs: rfq.settlement_deadline_secs,
    updated_at: now,
  };
  const losers: QuoteRow[] = quotes
    .filter((q) => q.id !== winner.id && q.status === 'SUBMITTED')
    .map((q) => ({ ...q, status: transitionQuote('SUBMITTED', 'notSelect'), updated_at: now }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const written = await sql<{ rfqs: number; winners: number; losers: number }>`
    with r as (
      update rfqs set status = ${updatedRfq.status}, quoted_at = ${now}, selected_quote_id = ${winner.id}, updated_at = ${now}
      where id = ${rfq.id} and status = ${rfq.status}
      returning 1
    ),
    w as (
      update quotes set status = ${selectedWinner.status}, settlement_deadline_secs = ${rfq.settlement_deadline_secs}, updated_at = ${now}
      where id = ${winner.id} and status = ${winner.status}
      returning 1
    ),
    l as (
      update quotes set status = 'NOT_SELECTED', updated_at = ${now}
      where id = any(${losers.map((q) => q.id)}::text[]) and status = 'SUBMITTED'
      returning 1
    )
    select (select count(*) from r)::int as rfqs, (select count(*) from w)::int as winners, (select count(*) from l)::int as losers
  `.execute(tx);
  const counts = written.rows[0]!;
  if (counts.rfqs !== 1 || counts.winners !== 1 || counts.losers !== losers.length) {
    throw new Error(`selection of ${winner.id} wrote ${JSON.stringify(counts)}: rows changed under their locks`);
  }

  const gateway = deps.settlement[winner.settlement_mode];
  if (gateway) {
    const fields = await gateway.onSelected(tx, { rfq: updatedRfq, quote: selectedWinner, instrument, now });
    if (Object.keys(fields).length > 0) {
      selectedWinner = await tx.updateTable('quotes').set(fields).where('id', '=', winner.id).returningAll().executeTakeFirstOrThrow();
    }
  }

  await emitRfqStatus(tx, updatedRfq, instrument, now);
  await emitQuoteStatus(tx, selectedWinner, updatedRfq, instrument, now);
  for (const loser of losers) await emitQuoteStatus(tx, loser, updatedRfq, instrument, now);
  guard.count(selectedWinner, instrument);
  await guard.flush(tx, now);
  await emitBalances(tx, deps, rfq.account_id, now);
  return { rfq: updatedRfq, winner: selectedWinner };
}
