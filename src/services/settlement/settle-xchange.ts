/**
 * An observed xchange swap (the adapter's `XchangeSettled` event) settles the RFQ whose selected
 * quote carries exactly that bundle. Runs inside the chain follower's step transaction.
 * The ledger, statuses and frames are the settle step shared with permit2 (`settle-spot.ts`), or
 * on a sweep the leg's own (`sweep-legs.ts`).
 */
import { getAddress } from 'viem';
import { lockRfqThenQuote, xchangeQuoteRfq } from '../../store/settlement-matching.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { resolveInstrument } from '../rfq/create-rfq.ts';
import type { XchangeBundleInput } from '../rfq/xchange-bundle.ts';
import { settleSpot } from './settle-spot.ts';
import { settleSweepLeg } from '../rfq/sweep-legs.ts';

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
  const found = await xchangeQuoteRfq(tx, swap.quoteId);
  if (!found) return 'notOurs';
  // Lock order: the RFQ, then its quote.
  const { rfq, quote } = await lockRfqThenQuote(tx, found.rfq_id, swap.quoteId);
  const bundle = quote.xchange as XchangeBundleInput | null;
  // Anyone can run a swap naming this quoteId with their own funds; only the bundle counts.
  if (!bundle || !sameTransfer(bundle.settlement.swapMessage.incomingTransfer, swap.incomingTransfer) || !sameTransfer(bundle.settlement.swapMessage.outgoingTransfer, swap.outgoingTransfer)) {
    return 'notOurs';
  }
  // On a sweep every leg is a selected quote of its own (sweep-legs.ts).
  const sweep = rfq.fill === 'SWEEP';
  const selected = sweep ? (rfq.sweep_fills ?? []).some((f) => f.quoteId === quote.id) : rfq.selected_quote_id === quote.id;
  if (rfq.status !== 'QUOTED' || quote.status !== 'SELECTED' || !selected) return 'notSettleable';
  const instrument = await resolveInstrument(deps, rfq.instrument_id);
  const settlement = { rfq, quote, instrument, txHash: swap.txHash, now: deps.clock.now() };
  if (sweep) await settleSweepLeg(tx, deps, settlement);
  else await settleSpot(tx, deps, settlement);
  return 'settled';
}
