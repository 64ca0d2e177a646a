/**
 * An observed xchange swap (the adapter's `XchangeSettled` event) settles the RFQ whose selected
 * quote carries exactly that bundle. Runs inside the chain follower's step transaction.
 *
 * `settleSpot` is the mode-independent part (ledger, statuses, frames), written to match the
 * permit2 settlement so the two can share it: the taker's pay leg leaves custody to the maker,
 * the maker's leg arrives in custody, the fee stays in custody as the service's claim (TEAM.md
 * ledger convention; one SETTLEMENT entry per token and one FEE entry on the taker's ledger).
 */
import { getAddress } from 'viem';
import { takerPayToken, transitionQuote, transitionRfq, type Instrument, type QuoteStatus, type RfqStatus } from '../../domain/rfq/index.ts';
import { endLock, postMovement, type Posting } from '../../store/ledger.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { resolveInstrument } from '../rfq/create-rfq.ts';
import { emitBalances, emitQuoteStatus, emitRfqStatus } from '../rfq/events.ts';
import { rfqTerms, type QuoteRow, type RfqRow } from '../rfq/rows.ts';
import type { XchangeBundleInput } from '../rfq/xchange-bundle.ts';

export interface ObservedTransfer {
  token: string;
  from: string;
  to: string;
  amount: bigint;
}

export interface ObservedXchangeSwap {
  quoteId: string;
  txHash: string;
  incomingTransfer: ObservedTransfer;
  outgoingTransfer: ObservedTransfer;
}

/** `settled`; `notOurs` (no xchange quote with that id and bundle); `notSettleable` (funds moved, RFQ no longer QUOTED). */
export type XchangeSettleOutcome = 'settled' | 'notOurs' | 'notSettleable';

const sameTransfer = (wire: XchangeBundleInput['settlement']['swapMessage']['incomingTransfer'], seen: ObservedTransfer) =>
  getAddress(wire.token) === getAddress(seen.token) &&
  getAddress(wire.from) === getAddress(seen.from) &&
  getAddress(wire.to) === getAddress(seen.to) &&
  BigInt(wire.amount) === seen.amount;

export async function settleXchange(tx: Tx, deps: ServiceDeps, swap: ObservedXchangeSwap): Promise<XchangeSettleOutcome> {
  const found = await tx.selectFrom('quotes').select(['rfq_id']).where('id', '=', swap.quoteId).where('settlement_mode', '=', 'xchange').executeTakeFirst();
  if (!found) return 'notOurs';
  // Lock order: the RFQ, then its quote.
  const rfq = await tx.selectFrom('rfqs').selectAll().where('id', '=', found.rfq_id).forUpdate().executeTakeFirstOrThrow();
  const quote = await tx.selectFrom('quotes').selectAll().where('id', '=', swap.quoteId).forUpdate().executeTakeFirstOrThrow();
  const bundle = quote.xchange as XchangeBundleInput | null;
  // Anyone can run a swap naming this quoteId with their own funds; only the bundle counts.
  if (!bundle || !sameTransfer(bundle.settlement.swapMessage.incomingTransfer, swap.incomingTransfer) || !sameTransfer(bundle.settlement.swapMessage.outgoingTransfer, swap.outgoingTransfer)) {
    return 'notOurs';
  }
  if (rfq.status !== 'QUOTED' || quote.status !== 'SELECTED' || rfq.selected_quote_id !== quote.id) return 'notSettleable';
  const instrument = await resolveInstrument(deps, rfq.instrument_id);
  await settleSpot(tx, deps, { rfq, quote, instrument, txHash: swap.txHash, now: deps.clock.now() });
  return 'settled';
}

/** Ledger, RFQ and quote SETTLED with txHash and executed amounts, and their frames. */
export async function settleSpot(tx: Tx, deps: ServiceDeps, s: { rfq: RfqRow; quote: QuoteRow; instrument: Instrument; txHash: string; now: number }): Promise<void> {
  const { rfq, quote, instrument, txHash, now } = s;
  const payToken = takerPayToken(rfqTerms(rfq, instrument));
  const paid = quote.maker_receives_amount; // taker -> maker, out of custody
  const received = quote.maker_pays_amount; // maker -> taker, into custody
  const fee = quote.taker_fee;
  const lock = await endLock(tx, 'rfq', rfq.id, 'consume', 'settled', now);
  if (!lock || lock.token !== payToken || lock.amount < paid + fee) throw new Error(`RFQ ${rfq.id} has no lock covering its settlement`);
  if (lock.amount > paid + fee) {
    // Nothing locks more than the winner costs today; should it ever, the surplus goes back.
    await tx.updateTable('balances').set((eb) => ({ available: eb('available', '+', lock.amount - paid - fee), locked: eb('locked', '-', lock.amount - paid - fee) }))
      .where('account_id', '=', rfq.account_id).where('token', '=', payToken).where('rail', '=', 'EVM').execute();
  }
  const taker = { book: 'user' as const, accountId: rfq.account_id, rail: 'EVM' as const };
  const postings: Posting[] = [
    { ...taker, token: payToken, delta: -paid, source: 'SETTLEMENT', fromLocked: true },
    { book: 'custody', token: payToken, rail: 'EVM', delta: paid, source: 'SETTLEMENT' },
    { ...taker, token: quote.maker_pays_token, delta: received, source: 'SETTLEMENT' },
    { book: 'custody', token: quote.maker_pays_token, rail: 'EVM', delta: -received, source: 'SETTLEMENT' },
  ];
  if (fee > 0n) {
    postings.push(
      { ...taker, token: payToken, delta: -fee, source: 'FEE', fromLocked: true },
      { book: 'fees', token: payToken, rail: 'EVM', delta: fee, source: 'FEE' },
    );
  }
  await postMovement(tx, { movementId: deps.ids.uuid(), kind: 'settlement', reference: rfq.id, postings, postingIds: postings.map(() => deps.ids.uuid()), at: now });

  const settledRfq = await tx
    .updateTable('rfqs')
    .set({
      status: transitionRfq(rfq.status as RfqStatus, 'settled'),
      settled_at: now,
      tx_hash: txHash,
      executed_pay_amount: paid + fee,
      executed_recv_amount: received,
      taker_fee: fee,
      updated_at: now,
    })
    .where('id', '=', rfq.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const settledQuote = await tx
    .updateTable('quotes')
    .set({ status: transitionQuote(quote.status as QuoteStatus, 'settle'), settled_at: now, tx_hash: txHash, updated_at: now })
    .where('id', '=', quote.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await emitRfqStatus(tx, settledRfq, instrument, now);
  await emitQuoteStatus(tx, settledQuote, settledRfq, instrument, now);
  await emitBalances(tx, deps, rfq.account_id, now);
}
