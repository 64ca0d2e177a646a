/**
 * Selection by the taker's accept (the auction close selects in batches, close-auction.ts). The
 * selection's shape is `planSelection`: the taker's pay leg locked for exactly what the winner
 * costs, the RFQ QUOTED, the winner SELECTED (with its settlement fields), every other open quote
 * NOT_SELECTED, each decision's frames (the taker's balances with the RFQ's status, since the lock
 * is taken first). The accept alone (`selectQuote`, inside its transaction with the RFQ, its
 * quotes and the winner's protection locked by `rfq_accept_lock`) writes it in one database call
 * (`rfq_accept_write`, through persist-transition.ts); a batch of accepts writes the plans of all
 * its items in one (accept-batch.ts). The decisions stay here.
 */
import { decideRfq, quoteFates, takerLockAmount, takerPayToken, type Instrument, type RfqDecision } from '../../domain/rfq/index.ts';
import { assertLockAmount, endLock, insufficientBalance, type LockRequest } from '../../store/ledger.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { persistAcceptSelection, rfqState, type QuoteChange } from './persist-transition.ts';
import { rfqTerms, type QuoteRow, type RfqRow } from './rows.ts';
import { ServiceError } from '../../domain/errors.ts';
import type { SelectionGuard } from '../protection/selection-guard.ts';

export interface Selected {
  rfq: RfqRow;
  winner: QuoteRow;
}

/** What a taker's selection writes: the RFQ's decision, the taker's funds lock, and every quote's change (the winner first). */
export interface SelectionPlan {
  decision: RfqDecision<'accept'>;
  lock: LockRequest;
  quotes: [QuoteChange, ...QuoteChange[]];
}

/**
 * Decides a taker's selection of `winner` (the RFQ, its quotes and the winner's protection locked
 * by the caller): the funds lock for exactly what the winner costs, the RFQ QUOTED, the winner
 * SELECTED with its settlement fields, every other open quote NOT_SELECTED. Writes nothing (the
 * gateway's `onSelected` only reads). The one home of the selection's shape, for the accept alone
 * (below) and the batch (accept-batch.ts).
 */
export async function planSelection(
  tx: Tx,
  deps: ServiceDeps,
  selection: { rfq: RfqRow; winner: QuoteRow; quotes: readonly QuoteRow[]; instrument: Instrument; now: number },
): Promise<SelectionPlan> {
  const { rfq, winner, quotes, instrument, now } = selection;
  const terms = rfqTerms(rfq, instrument);
  const decision = decideRfq(rfqState(rfq, instrument), 'accept');
  const lock: LockRequest = {
    lockId: deps.ids.uuid(),
    accountId: rfq.account_id,
    token: takerPayToken(terms),
    rail: 'EVM',
    amount: takerLockAmount(terms, { makerReceives: { token: winner.maker_receives_token, amount: winner.maker_receives_amount } }),
    ownerKind: 'rfq',
    ownerId: rfq.id,
    at: now,
  };
  assertLockAmount(lock);
  // The winner's settlement fields (permit, delivery window) are decided from what the selection
  // does not change (ids, amounts, deadline), so they go into the status write itself.
  const gateway = deps.settlement[winner.settlement_mode];
  const fields = gateway ? await gateway.onSelected(tx, { rfq, quote: winner, instrument, now }) : {};
  // The RFQ, then the winner (with its fields) and every other open quote, each a compare-and-set
  // on the status its transition was decided from.
  const others = quotes.filter((q) => q.rfq_id === rfq.id && q.id !== winner.id).sort((a, b) => (a.id < b.id ? -1 : 1));
  const [won, ...rest] = quoteFates([winner, ...others], [winner.id]);
  return {
    decision,
    lock,
    quotes: [
      { quote: winner, decision: won!.decision, settlementDeadlineSecs: rfq.settlement_deadline_secs, fields },
      ...rest.map((f) => ({ quote: f.quote, decision: f.decision, settlementDeadlineSecs: null })),
    ],
  };
}

export async function selectQuote(
  tx: Tx,
  deps: ServiceDeps,
  selection: { rfq: RfqRow; winner: QuoteRow; quotes: QuoteRow[]; instrument: Instrument; guard: SelectionGuard; now: number },
): Promise<Selected> {
  const { rfq, winner, quotes, instrument, guard, now } = selection;
  // A suspended or inactive maker could not settle what it won (its maker calls are refused).
  if (guard.barred(winner.maker_account_id)) throw makerBarred();
  // Market-maker protection: a maker whose protection tripped has its open quotes cancelled; none is selected meanwhile.
  if (!guard.maySelect(winner.maker_account_id, rfq.instrument_id)) throw protectionWithdrew();
  // An autoAccept RFQ locked its bound at submission; the winner may cost less, so re-lock exactly.
  if (rfq.auto_accept) await endLock(tx, 'rfq', rfq.id, 'release', 'selection', now);
  const plan = await planSelection(tx, deps, { rfq, winner, quotes, instrument, now });
  // The funds lock, the RFQ, then the quotes: one call.
  const written = await persistAcceptSelection(tx, deps, { rfq, decision: plan.decision, lock: plan.lock, quotes: plan.quotes, instrument, now });
  if (!written) throw insufficientBalance(plan.lock.token);
  const { rfq: updatedRfq, quotes: [selectedWinner] } = written;
  guard.count(selectedWinner!, instrument);
  await guard.flush(tx, now);
  return { rfq: updatedRfq, winner: selectedWinner! };
}

/** The refusal of a quote whose maker is suspended or no longer active (`rfq_barred_makers`). */
export function makerBarred(): ServiceError {
  return new ServiceError('QUOTE_NOT_ACCEPTABLE', "this quote's maker is suspended or no longer active", { reason: 'makerNotApproved' });
}

/** The refusal of a quote whose maker's protection tripped. */
export function protectionWithdrew(): ServiceError {
  return new ServiceError('QUOTE_NOT_ACCEPTABLE', "the maker's protection withdrew this quote", { reason: 'makerProtection' });
}
