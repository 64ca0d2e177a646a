/**
 * The driver's own model of the venue, built only from what the API acknowledged: which RFQs,
 * quotes and withdrawals exist, what was funded, which cancels and accepts were answered 2xx, and
 * what each actor last saw. From it follow the figures the service must show: a user's total per
 * token (funding only moves through acknowledged actions) and its locked amount (the locks the
 * spec's tables say each live RFQ and withdrawal holds).
 */
import { feeFloor, parseAmount } from '../../src/domain/money/index.ts';

export const TOKENS = { USDC: 6, ETH: 18, BTC: 8 } as const;
export type Token = keyof typeof TOKENS;

export interface InstrumentTerms { id: string; base: Token; quote: Token; feeTenthBp: number; refPrice: number; qtyDecimals: number; qtyRange: [number, number]; perp?: boolean }

/** The reference data the stack seeds (test/helpers/harness.ts seedReferenceData), with the driver's price levels. */
export const INSTRUMENTS: InstrumentTerms[] = [
  { id: 'ETH-USDC-SPOT', base: 'ETH', quote: 'USDC', feeTenthBp: 250, refPrice: 3000, qtyDecimals: 4, qtyRange: [0.05, 3] },
  { id: 'BTC-USDC-SPOT', base: 'BTC', quote: 'USDC', feeTenthBp: 100, refPrice: 60000, qtyDecimals: 5, qtyRange: [0.001, 0.2] },
];

/**
 * The perp the venue simulator trades (its ETH, mid 3500): no fee in the service (the builder fee
 * is the venue's), no funds locked, nothing in the ledger; sizes on the venue's 4-decimal grid.
 */
export const PERP_TERMS: InstrumentTerms = { id: 'ETH-USDC-PERP', base: 'ETH', quote: 'USDC', feeTenthBp: 0, refPrice: 3500, qtyDecimals: 4, qtyRange: [0.01, 0.5], perp: true };

export const units = (token: Token, amount: string): bigint => parseAmount(amount, TOKENS[token], { field: 'amount' });

export interface QuoteTerms { pays: string; receives: string }

export interface QuoteModel {
  id: string;
  rfqId: string;
  maker: string;
  /** Submissions answered 202: the version must equal this count (each advances it once). */
  acks: number;
  /** Terms of every acknowledged submission; the current terms are one of them. */
  terms: QuoteTerms[];
  /** When the last submissions were not concurrent: the terms the quote must show now. */
  lastTerms: QuoteTerms | null;
  cancelAcked: boolean;
  status: string;
  /** How the quote settles: the maker's inventory mode, or xchange when it carried a bundle (a re-quote keeps it). */
  mode: 'permit2' | 'promised' | 'xchange' | 'perp';
  /**
   * SWEEP RFQ only: whether the last acknowledged submission let the quote be cut
   * (`allOrNone: false`); null when concurrent submissions disagreed (either may have committed last).
   */
  divisible: boolean | null;
}

/**
 * One leg of a sweep as the taker's RFQ lists it (`fills`), in raw units: its base, its quote-token
 * amount between maker and taker before the fee, the fee (quote token on both sides), and the
 * quote's legs as selected (decimal strings, cut if it was cut), what a payout pays.
 */
export interface SweepLegModel { quoteId: string; base: bigint; quoteQty: bigint; fee: bigint; status: string; makerPays: string; makerReceives: string; /** A perp leg's share of the taker's fill, once SETTLED. */ perpFilledSize?: string | null }

/** What a SWEEP RFQ adds: the `minFillQty` asked for, the legs the accept answered, the legs as last read. */
export interface SweepModel {
  minFillQty: string | null;
  /** The quote ids a 202 accept answered (`quoteIds`, rank order); null until one was acknowledged. */
  acceptedLegs: string[] | null;
  /** By quote id, in rank order: filled from the RFQ's `fills` on each stable read. */
  legs: Map<string, SweepLegModel>;
}

export interface RfqModel {
  id: string;
  taker: string;
  instrument: InstrumentTerms;
  side: 'BUY' | 'SELL';
  baseQty: string;
  autoAccept: boolean;
  quoteLimit: string | null;
  idempotencyKey: string;
  cancelAcked: boolean;
  /** The accept answered 202 (quote id), if any: the RFQ must have selected exactly this one. */
  acceptedQuote: string | null;
  status: string;
  quotes: Map<string, QuoteModel>;
  /** From the makers' open listing (unix seconds): an xchange bundle's expiration must equal it. */
  settlementDeadline: number | null;
  /** `fill: "SWEEP"`: several makers fill it, each selected quote its own leg (null on an ALL RFQ). */
  sweep: SweepModel | null;
  /** The winning quote's legs once the RFQ was seen SETTLED: what moved the taker's balances (an ALL RFQ only). */
  settled: { quoteId: string; takerTotal: string; makerPays: string; makerReceives: string; perpFilledSize?: string | null } | null;
}

/** A deposit transfer the chain acknowledged (a successful receipt) and, once listed COMPLETED, credited. */
export interface DepositModel { txHash: string; user: string; token: Token; raw: bigint; credited: boolean }

/**
 * A maker's settlement transaction for a quote it won: a permit2 relay or a promised delivery.
 * `ok`: its receipt succeeded (a delivery: and it was mined inside the quote's window, else it is
 * a deposit of the maker's); `reorged`: the driver then reorganised it away; `late`: sent on
 * purpose once the chain was past the settlement deadline.
 */
export interface RelayModel { step: number; rfqId: string; quoteId: string; maker: string; txHash: string; ok: boolean; tampered: boolean; reorged: boolean; kind: 'relay' | 'delivery'; late: boolean }

export interface WithdrawalModel { id: string; user: string; token: Token; amount: string; status: string; idempotencyKey: string }

export class Model {
  readonly rfqs = new Map<string, RfqModel>();
  readonly quotes = new Map<string, QuoteModel>();
  readonly withdrawals = new Map<string, WithdrawalModel>();
  /** On-chain deposits by transaction hash (lower case). */
  readonly deposits = new Map<string, DepositModel>();
  readonly relays: RelayModel[] = [];
  /** Acknowledged credits and debits per user and token (operator adjustments). */
  readonly funded = new Map<string, Map<Token, bigint>>();

  credit(user: string, token: Token, amount: bigint): void {
    const byToken = this.funded.get(user) ?? new Map<Token, bigint>();
    byToken.set(token, (byToken.get(token) ?? 0n) + amount);
    this.funded.set(user, byToken);
  }

  fundedOf(user: string, token: Token): bigint {
    return this.funded.get(user)?.get(token) ?? 0n;
  }

  /** What a user's total must be: funding and credited deposits, less withdrawals that completed, moved by its settled trades. */
  expectedTotal(user: string, token: Token): bigint {
    let total = this.fundedOf(user, token);
    for (const d of this.deposits.values()) if (d.user === user && d.token === token && d.credited) total += d.raw;
    for (const w of this.withdrawals.values()) if (w.user === user && w.token === token && w.status === 'COMPLETED') total -= units(token, w.amount);
    for (const rfq of this.rfqs.values()) {
      if (rfq.taker !== user || rfq.instrument.perp) continue;
      // A sweep's legs move the ledger one by one, each as it settles (the RFQ may still be QUOTED).
      if (rfq.sweep) for (const leg of settledLegs(rfq)) total += this.legEffect(rfq, leg).taker.get(token) ?? 0n;
      else if (rfq.settled) total += this.tradeEffect(rfq).taker.get(token) ?? 0n;
    }
    return total;
  }

  /**
   * What one settled leg of a sweep moved: fees in the quote token on both sides. BUY: the taker
   * +base, -(quoteQty + fee); the maker -base, +quoteQty. SELL: the taker -base, +(quoteQty - fee);
   * the maker -quoteQty, +base. Custody keeps the fee.
   */
  legEffect(rfq: RfqModel, leg: SweepLegModel): { taker: Map<Token, bigint>; maker: Map<Token, bigint>; fee: { token: Token; raw: bigint } } {
    const { base, quote } = rfq.instrument;
    const buy = rfq.side === 'BUY';
    return {
      taker: new Map([[base, buy ? leg.base : -leg.base], [quote, buy ? -(leg.quoteQty + leg.fee) : leg.quoteQty - leg.fee]]),
      maker: new Map([[base, buy ? -leg.base : leg.base], [quote, buy ? leg.quoteQty : -leg.quoteQty]]),
      fee: { token: quote, raw: leg.fee },
    };
  }

  /** The maker of a quote the model knows. */
  makerOf(quoteId: string): string {
    return this.quotes.get(quoteId)!.maker;
  }

  /**
   * What a settled trade moved: the taker's ledger (BUY: +baseQty base, -takerTotal quote; SELL:
   * -baseQty base, +makerPays quote), the maker's wallet (-makerPays, +makerReceives) and the fee
   * custody keeps (the taker's leg less what the maker received).
   */
  tradeEffect(rfq: RfqModel): { taker: Map<Token, bigint>; maker: Map<Token, bigint>; fee: { token: Token; raw: bigint } } {
    const s = rfq.settled!;
    const { base, quote } = rfq.instrument;
    const baseQty = units(base, rfq.baseQty);
    if (rfq.side === 'BUY') {
      const takerPays = units(quote, s.takerTotal);
      const makerReceives = units(quote, s.makerReceives);
      return {
        taker: new Map([[base, baseQty], [quote, -takerPays]]),
        maker: new Map([[base, -units(base, s.makerPays)], [quote, makerReceives]]),
        fee: { token: quote, raw: takerPays - makerReceives },
      };
    }
    const makerPays = units(quote, s.makerPays);
    const makerReceives = units(base, s.makerReceives);
    return {
      taker: new Map([[base, -baseQty], [quote, makerPays]]),
      maker: new Map([[quote, -makerPays], [base, makerReceives]]),
      fee: { token: base, raw: baseQty - makerReceives },
    };
  }

  /**
   * The lock an RFQ holds in `status` (spec: funds lock at submission for autoAccept, at
   * acceptance otherwise; released on FAILED/CANCELLED): on a BUY the quote token (the bound
   * while PENDING, the winner's takerTotal once QUOTED), on a SELL the base quantity.
   */
  rfqLock(rfq: RfqModel, status: string, selectedTakerTotal: string | null): { token: Token; amount: bigint } | null {
    const live = status === 'QUOTED' || (status === 'PENDING' && rfq.autoAccept);
    if (!live || rfq.instrument.perp) return null;
    if (rfq.side === 'SELL') return { token: rfq.instrument.base, amount: units(rfq.instrument.base, rfq.baseQty) };
    if (status === 'PENDING') return { token: rfq.instrument.quote, amount: units(rfq.instrument.quote, rfq.quoteLimit!) };
    if (selectedTakerTotal === null) throw new Error(`QUOTED RFQ ${rfq.id} shows no SELECTED quote`);
    return { token: rfq.instrument.quote, amount: units(rfq.instrument.quote, selectedTakerTotal) };
  }

  /**
   * A SWEEP RFQ's lock in `status` (accept-sweep.ts, close-sweep.ts): an autoAccept one holds its
   * bound while PENDING (BUY `quoteLimit`, SELL `baseQty`); once QUOTED each leg still SELECTED
   * holds its own, its `takerTotal` as selected (BUY what it pays, fee included; SELL its base).
   */
  sweepLock(rfq: RfqModel, status: string, selectedTakerTotals: string[]): { token: Token; amount: bigint } | null {
    // A perp locks nothing: the taker trades from its venue account.
    if (rfq.instrument.perp) return null;
    const token = rfq.side === 'BUY' ? rfq.instrument.quote : rfq.instrument.base;
    if (status === 'PENDING' && rfq.autoAccept) return { token, amount: units(token, rfq.side === 'BUY' ? rfq.quoteLimit! : rfq.baseQty) };
    if (status !== 'QUOTED') return null;
    return { token, amount: selectedTakerTotals.reduce((sum, t) => sum + units(token, t), 0n) };
  }

  openRfqsOf(taker: string): RfqModel[] {
    return [...this.rfqs.values()].filter((r) => r.taker === taker && (r.status === 'PENDING' || r.status === 'QUOTED'));
  }
}

/** The legs of a sweep seen SETTLED. */
export function settledLegs(rfq: RfqModel): SweepLegModel[] {
  return [...(rfq.sweep?.legs.values() ?? [])].filter((l) => l.status === 'SETTLED');
}

/** A leg's fee on a sweep: the instrument's rate on its quote-token amount, rounded down (sweep-selection.ts). */
export function sweepFee(rfq: RfqModel, quoteQty: bigint): bigint {
  return feeFloor(quoteQty, rfq.instrument.feeTenthBp);
}

/** A withdrawal holds its lock until it ends (withdrawal-state.ts `holdsLock`). */
export const WITHDRAWAL_LOCKING = new Set(['PENDING', 'APPROVED', 'PROCESSING', 'UNRESOLVED']);
