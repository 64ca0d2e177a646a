/**
 * A promised-mode delivery: a transfer of the quote's `makerPays` token, of exactly its raw
 * amount, from the maker's address to custody, mined inside the quote's window. Observed final by
 * the chain follower, it settles the RFQ in the step's transaction:
 * - taker +makerPays (SETTLEMENT) / custody -makerPays (it arrived);
 * - taker -makerReceives (SETTLEMENT, from locked) / maker_settlement +makerReceives (the
 *   service now owes the maker that leg);
 * - taker -fee (FEE, from locked) / fees +fee;
 * - RFQ and quote SETTLED with `txHash` = the delivery transaction (the taker's trade is complete
 *   once the maker's leg is final in custody; the payout is the service's own obligation);
 * - the payout of `makerReceives` to the maker is queued for the custody broadcaster.
 */
import { getAddress } from 'viem';
import { decideQuote, decideRfq } from '../../domain/rfq/index.ts';
import { promisedDeliveryPostings } from '../../domain/ledger/index.ts';
import { postMovement, returnToAvailable } from '../../store/ledger.ts';
import { recordPromisedDelivery, undeliveredPromisedQuotes } from '../../store/promised-deliveries.ts';
import { lockQuoteIn, lockRfqIn, rfqIdOfQuote } from '../../store/rfq-rows.ts';
import type { Reader, Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { enqueueCustodyTransfer } from '../funds/custody-transfers.ts';
import type { ObservedTransfer } from '../funds/deposits.ts';
import { resolveInstrument } from './create-rfq.ts';
import { persistQuote, persistRfq, rfqState } from './persist-transition.ts';
import { insideWindow } from './promised-gateway.ts';
import type { QuoteRow } from './rows.ts';
import { endTakerLock } from './taker-lock.ts';
import { settleSweepLeg } from './sweep-legs.ts';

/** The open promised quote this transfer delivers, if any (earliest window first). */
export async function findPromisedQuote(db: Reader, transfer: ObservedTransfer & { blockTimestampSecs: number }): Promise<QuoteRow | null> {
  const candidates = await undeliveredPromisedQuotes(db, { fromAddress: getAddress(transfer.from), token: transfer.token, amount: transfer.amount });
  return candidates.find((q) => insideWindow(q, transfer.blockTimestampSecs)) ?? null;
}

/** Settles the quote's RFQ on a final delivery; false if the quote is no longer open. */
export async function settlePromisedDelivery(tx: Tx, deps: ServiceDeps, quoteId: string, transfer: ObservedTransfer & { blockTimestampSecs: number }, now: number): Promise<boolean> {
  const rfqId = await rfqIdOfQuote(tx, quoteId);
  // Lock order: RFQ before its quotes (rows.ts).
  const rfq = await lockRfqIn(tx, rfqId, 'QUOTED');
  // On a sweep every leg is a selected quote of its own (sweep-legs.ts).
  const sweep = rfq?.fill === 'SWEEP';
  if (!rfq || (sweep ? !(rfq.sweep_fills ?? []).some((f) => f.quoteId === quoteId) : rfq.selected_quote_id !== quoteId)) return false;
  const quote = await lockQuoteIn(tx, quoteId, 'SELECTED');
  if (!quote) return false;
  const instrument = await resolveInstrument(deps, rfq.instrument_id);
  const reference = await deps.refdata.current();
  const payoutTokenAddress = reference.tokens.get(quote.maker_receives_token)?.address;
  if (!payoutTokenAddress) throw new Error(`promised payout token ${quote.maker_receives_token} has no on-chain address`);
  const delivered = { quote_id: quote.id, rfq_id: rfq.id, tx_hash: transfer.txHash, log_index: transfer.logIndex, block_number: transfer.blockNumber, block_timestamp_secs: transfer.blockTimestampSecs, created_at: now };
  const payout = { purpose: 'payout' as const, ownerId: quote.id, token: quote.maker_receives_token, tokenAddress: payoutTokenAddress, toAddress: getAddress(transfer.from), amount: quote.maker_receives_amount };
  if (sweep) {
    await recordPromisedDelivery(tx, delivered);
    await settleSweepLeg(tx, deps, { rfq, quote, instrument, txHash: transfer.txHash, now, paidTo: 'maker_settlement' });
    await enqueueCustodyTransfer(tx, deps, payout, now);
    return true;
  }

  const decision = decideRfq(rfqState(rfq, instrument), 'settled');
  const lock = await endTakerLock(tx, rfq.id, decision.takerLock, 'settled', now);
  const taken = quote.maker_receives_amount + quote.taker_fee;
  if (!lock || lock.amount < taken) throw new Error(`RFQ ${rfq.id} has no live lock covering ${taken}`);
  const postings = promisedDeliveryPostings({
    taker: rfq.account_id,
    paid: { token: quote.maker_receives_token, amount: quote.maker_receives_amount },
    received: { token: quote.maker_pays_token, amount: quote.maker_pays_amount },
    fee: quote.taker_fee,
  });
  await postMovement(tx, { movementId: deps.ids.uuid(), kind: 'SETTLEMENT', reference: rfq.id, memo: transfer.txHash, at: now, postings, postingIds: postings.map(() => deps.ids.uuid()) });
  // A lock larger than what settled (never expected: selection locks exactly) goes back to available.
  await returnToAvailable(tx, lock, lock.amount - taken);

  await recordPromisedDelivery(tx, delivered);
  // The RFQ (its taker told, with the balances the postings changed), then the quote (its maker).
  const settledRfq = await persistRfq(tx, deps, {
    rfq,
    decision,
    fields: { settled_at: now, tx_hash: transfer.txHash, executed_pay_amount: taken, executed_recv_amount: quote.maker_pays_amount, taker_fee: quote.taker_fee },
    instrument,
    now,
  });
  await persistQuote(tx, deps, { quote, decision: decideQuote(quote, 'settle'), fields: { settled_at: now, tx_hash: transfer.txHash }, rfq: settledRfq, instrument, now });
  await enqueueCustodyTransfer(tx, deps, payout, now);
  return true;
}
