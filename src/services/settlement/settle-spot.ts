/**
 * The settle step shared by every on-chain settlement mode (permit2 `RfqSettled`, xchange
 * `XchangeSettled`), run inside the chain follower's step transaction once the caller has locked
 * the RFQ and its quote and checked that the event is this quote's settlement and that both are
 * still SELECTED/QUOTED. The taker's lock is consumed into the ledger (TEAM.md ledger convention:
 * the taker's pay leg leaves custody to the maker, the maker's leg arrives in custody, the fee
 * stays in custody as the service's claim; one SETTLEMENT posting per token and one FEE on the
 * taker's ledger), quote and RFQ become SETTLED with the transaction hash and executed amounts,
 * and their frames go to the outbox.
 */
import { decideQuote, decideRfq, type Instrument } from '../../domain/rfq/index.ts';
import { spotSettlementPostings } from '../../domain/ledger/index.ts';
import { postMovement } from '../../store/ledger.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { persistQuote, persistRfq, rfqState } from '../rfq/persist-transition.ts';
import type { QuoteRow, RfqRow } from '../rfq/rows.ts';
import { endTakerLock } from '../rfq/taker-lock.ts';

export interface SpotSettlement {
  rfq: RfqRow;
  quote: QuoteRow;
  instrument: Instrument;
  txHash: string;
  now: number;
}

export async function settleSpot(tx: Tx, deps: ServiceDeps, s: SpotSettlement): Promise<void> {
  const { rfq, quote, instrument, txHash, now } = s;
  const payToken = quote.maker_receives_token;
  const recvToken = quote.maker_pays_token;
  const paid = quote.maker_receives_amount; // taker -> maker, out of custody
  const received = quote.maker_pays_amount; // maker -> taker, into custody
  const fee = quote.taker_fee;
  const decision = decideRfq(rfqState(rfq, instrument), 'settled');
  const lock = await endTakerLock(tx, rfq.id, decision.takerLock, 'settled', now);
  // The lock was taken for exactly this quote at selection; anything else is a bug that must not book.
  if (!lock || lock.token !== payToken || lock.amount !== paid + fee) {
    throw new Error(`RFQ ${rfq.id}: live lock ${JSON.stringify(lock, (_, v) => (typeof v === 'bigint' ? v.toString() : v))} does not cover settlement of ${quote.id}`);
  }
  const taker = rfq.account_id;
  const postings = spotSettlementPostings({ taker, paid: { token: payToken, amount: paid }, received: { token: recvToken, amount: received }, fee });
  await postMovement(tx, { movementId: deps.ids.uuid(), kind: 'SETTLEMENT', reference: rfq.id, at: now, postings, postingIds: postings.map(() => deps.ids.uuid()) });

  // The RFQ (its taker told, with the balances the postings changed), then the quote (its maker).
  const settledRfq = await persistRfq(tx, deps, {
    rfq,
    decision,
    fields: { settled_at: now, tx_hash: txHash, executed_pay_amount: paid + fee, executed_recv_amount: received, taker_fee: fee },
    instrument,
    now,
  });
  await persistQuote(tx, deps, { quote, decision: decideQuote(quote, 'settle'), fields: { settled_at: now, tx_hash: txHash }, rfq: settledRfq, instrument, now });
}
