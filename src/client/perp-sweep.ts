/**
 * The taker's side of a perp SWEEP RFQ (DESIGN.md section 14, "Perp"), pure: rank the quotes the
 * taker sees exactly as the service ranks the quotes an accept names (`selectSweep`, the venue's
 * size step as the cut grid), then the ONE IOC that takes the selection: `s` the selected base,
 * `p` the worst selected maker price (`perpSweepTakerTerms`). The service recomputes both from
 * the quotes named and refuses an order that differs, so the client uses the same domain
 * functions rather than its own copy of the rules. `PerpTaker.acceptSweep` signs and sends it.
 */
import { parseAmount } from '../domain/money/index.ts';
import { perpBaseStep, perpSweepTakerTerms, type PerpDecimals } from '../domain/perp/sweep.ts';
import { fractionDigits } from '../domain/perp/venue-decimals.ts';
import { selectSweep, type SweepQuote, type SweepSelection, type SweepTerms } from '../domain/rfq/sweep-selection.ts';
import type { Quote, Rfq } from './types.ts';

/** USDC's decimals in the service's perp quote legs. */
const USDC_DECIMALS = 6;

/** What of the RFQ the selection reads. */
export type PerpSweepRfq = Pick<Rfq, 'id' | 'instrumentId' | 'side' | 'baseQty' | 'minFillQty' | 'quoteLimit'>;

/** A quote as the sweep ranks it (legs in smallest units), with the wire quote it was read from. */
export interface RankedPerpQuote extends SweepQuote {
  wire: Quote;
}

export interface PerpSweepPlan {
  selection: SweepSelection<RankedPerpQuote>;
  decimals: PerpDecimals;
  /** The taker IOC's size and limit price. */
  s: string;
  p: string;
  /** The selected quotes' builder rate, which the IOC's builder key carries; null: no key. */
  builderFeeTenthBp: number | null;
  /** The accept's `quotes`: the selected ones in rank order, at the versions ranked. */
  quotes: Array<{ quoteId: string; expectedVersion: number }>;
}

export interface PerpSweepPlanInput {
  /** The coin's size decimals at the venue (`meta.universe[a].szDecimals`). */
  szDecimals: number;
  /** The instrument's rate (a perp's selection charges none: the venue bills the taker's account). */
  takerFeeTenthBp: number;
  /** Server time, unix ms: a quote past its maker window is not ranked. */
  now: number;
}

/** The quotes seen cannot fill the RFQ's `minFillQty`: nothing was signed or sent. */
export class SweepShortOfMinimum extends Error {
  override readonly name = 'SweepShortOfMinimum';
  readonly rfqId: string;
  readonly minFillQty: string;
  constructor(rfq: PerpSweepRfq, ranked: number) {
    const minFillQty = rfq.minFillQty ?? rfq.baseQty;
    super(`the ${ranked} open quote${ranked === 1 ? '' : 's'} on ${rfq.id} cannot fill its minFillQty of ${minFillQty} (of ${rfq.baseQty})`);
    this.rfqId = rfq.id;
    this.minFillQty = minFillQty;
  }
}

/**
 * Decimals that hold every amount in play exactly: the venue's size grid and the finest base given,
 * USDC's 6 and the finest quote leg. Prices and the size step are ratios, so any such scale gives
 * the service's `s` and `p` (it works at the instrument's decimals).
 */
function decimalsFor(rfq: PerpSweepRfq, quotes: readonly Quote[], szDecimals: number): PerpDecimals {
  const baseLeg = (q: Quote) => (rfq.side === 'BUY' ? q.makerPays : q.makerReceives).amount;
  const quoteLeg = (q: Quote) => (rfq.side === 'BUY' ? q.makerReceives : q.makerPays).amount;
  const bases = [rfq.baseQty, rfq.minFillQty ?? rfq.baseQty, ...quotes.map(baseLeg)];
  const quoteAmounts = [...(rfq.quoteLimit ? [rfq.quoteLimit] : []), ...quotes.map(quoteLeg)];
  return {
    baseDecimals: Math.max(szDecimals, ...bases.map(fractionDigits)),
    quoteDecimals: Math.max(USDC_DECIMALS, ...quoteAmounts.map(fractionDigits)),
    szDecimals,
  };
}

function ranked(rfq: PerpSweepRfq, quote: Quote, d: PerpDecimals): RankedPerpQuote {
  // BUY: the maker pays the base and receives USDC; SELL the other way round.
  const [paysDecimals, receivesDecimals] = rfq.side === 'BUY' ? [d.baseDecimals, d.quoteDecimals] : [d.quoteDecimals, d.baseDecimals];
  const leg = (l: Quote['makerPays'], decimals: number, field: string) => ({ token: l.token, amount: parseAmount(l.amount, decimals, { field }) });
  return {
    quoteId: quote.quoteId,
    status: quote.status,
    makerPays: leg(quote.makerPays, paysDecimals, 'makerPays'),
    makerReceives: leg(quote.makerReceives, receivesDecimals, 'makerReceives'),
    receivedAt: quote.receivedAt,
    acceptableForMs: quote.acceptableForMs ?? null,
    // DESIGN.md section 14: a quote is all-or-none unless its maker said otherwise.
    allOrNone: quote.allOrNone ?? true,
    wire: quote,
  };
}

/**
 * The sweep the taker would accept now over `quotes` (only this RFQ's, at their latest versions)
 * and the IOC that takes it. Throws `SweepShortOfMinimum` when the quotes cannot reach
 * `minFillQty`, and a plain error when the selection gives no valid order (a quote off the
 * venue's grids, or selected quotes with different builder rates).
 */
export function planPerpSweep(rfq: PerpSweepRfq, quotes: readonly Quote[], input: PerpSweepPlanInput): PerpSweepPlan {
  const own = quotes.filter((q) => q.rfqId === rfq.id);
  const d = decimalsFor(rfq, own, input.szDecimals);
  const terms: SweepTerms = {
    side: rfq.side,
    baseQty: parseAmount(rfq.baseQty, d.baseDecimals, { field: 'baseQty', positive: true }),
    minFillQty: parseAmount(rfq.minFillQty ?? rfq.baseQty, d.baseDecimals, { field: 'minFillQty', positive: true }),
    quoteLimit: rfq.quoteLimit ? parseAmount(rfq.quoteLimit, d.quoteDecimals, { field: 'quoteLimit' }) : null,
    takerFeeTenthBp: input.takerFeeTenthBp,
    instrumentType: 'PERP',
    baseStep: perpBaseStep(d),
  };
  const candidates = own.filter((q) => q.status === 'SUBMITTED').map((q) => ranked(rfq, q, d));
  const selection = selectSweep(terms, candidates, input.now);
  if (selection === null) throw new SweepShortOfMinimum(rfq, candidates.length);
  const order = perpSweepTakerTerms(rfq.side, selection.legs, d);
  if (order.p === null) throw new Error(`cannot build the sweep's order on ${rfq.id}: ${order.problem}`);
  const rates = new Set(selection.legs.map((l) => l.quote.wire.builderFeeTenthBp ?? null));
  // One IOC carries one builder key: quotes priced under different rates cannot share it.
  if (rates.size > 1) throw new Error(`the selected quotes on ${rfq.id} carry different builder fees (${[...rates].join(', ')}): one order cannot carry them all`);
  return {
    selection,
    decimals: d,
    s: order.s,
    p: order.p,
    builderFeeTenthBp: [...rates][0] ?? null,
    quotes: selection.legs.map((l) => ({ quoteId: l.quote.quoteId, expectedVersion: l.quote.wire.version })),
  };
}
