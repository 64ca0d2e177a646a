/**
 * Taking a perp quote (spec "Perp taker order shape and signing rules"; DESIGN.md 9.3): find the
 * venue (its URL, network and the service's builder address), approve the builder fee from the
 * main wallet when the approval is below the quote's rate, sign the taker's IOC for the chosen
 * quote with the SDK and accept with it. The service answers 202 before it checks the order; a
 * refused order turns the quote FAILED and leaves the RFQ PENDING, which `acceptPerp`'s caller
 * sees on the quote.
 *
 * On a SWEEP RFQ, `acceptSweep` ranks the quotes the taker sees as the service will, signs one IOC
 * over the selection and accepts naming the selected quotes.
 *
 *   const taker = await PerpTaker.connect(client, privateKeyToAccount(key));
 *   await taker.accept(rfq, quote);
 *   await taker.acceptSweep(sweepRfq, (await client.rfqQuotes(sweepRfq.id)).items);
 */
import type { Address, LocalAccount } from 'viem';
import { ApiError } from './http.ts';
import { perpCoin, perpDefaultLimit, PerpVenueClient, signTakerOrder, signTakerOrderTerms, VenueNonces, type SignedVenueOrder, type VenueNetwork } from './perp-order.ts';
import { planPerpSweep, type PerpSweepPlan, type PerpSweepRfq } from './perp-sweep.ts';
import type { RfqClient } from './rfq-client.ts';
import type { Quote, Rfq, Side } from './types.ts';

export interface PerpVenueSettings {
  /** The venue's API base URL (the embedded stack publishes its simulator's in `GET /v1/rfq/network`). */
  url?: string;
  network?: VenueNetwork;
  /** The service's builder address for this environment (published out of band; the embedded stack in `network`). */
  builderAddress?: string | null;
}

export interface PerpSweepOptions {
  /** Server time, unix ms (a quote past its maker window is not ranked); default the local clock. */
  now?: number;
  /** The instrument's rate; default read from `GET /v1/rfq/instruments`. */
  takerFeeTenthBp?: number;
  reduceOnly?: boolean;
}

export interface PerpSweepAccepted {
  /** The selection the order was signed for, and the order's terms. */
  plan: PerpSweepPlan;
  order: SignedVenueOrder;
  /** The service's 202: the selected quotes in rank order (`quoteId` the first). */
  accepted: { rfqId: string; quoteId: string; status: Rfq['status']; quoteIds: string[] };
  /** The builder rate approved at the venue for this accept; null when none was needed. */
  approvedBuilderFeeTenthBp: number | null;
}

export class PerpTaker {
  readonly client: RfqClient;
  readonly wallet: LocalAccount;
  readonly venue: PerpVenueClient;
  readonly builderAddress: string | null;
  readonly #nonces = new VenueNonces();

  private constructor(client: RfqClient, wallet: LocalAccount, venue: PerpVenueClient, builderAddress: string | null) {
    this.client = client;
    this.wallet = wallet;
    this.venue = venue;
    this.builderAddress = builderAddress;
  }

  /** Settings given win; the rest come from `GET /v1/rfq/network` `venue` where the node publishes it. */
  static async connect(client: RfqClient, wallet: LocalAccount, given: PerpVenueSettings = {}): Promise<PerpTaker> {
    let published: { network: VenueNetwork; builderAddress: string | null; url?: string } | undefined;
    if (!given.url || !given.network || given.builderAddress === undefined) {
      try {
        published = (await client.network()).venue;
      } catch (error) {
        // A node without a chain answers 503 NOT_AVAILABLE: rely on the settings given.
        if (!(error instanceof ApiError)) throw error;
      }
    }
    const url = given.url ?? published?.url;
    if (!url) throw new Error('no venue URL: the service does not publish one (only the embedded stack does); give it (--venue-url or RFQ_VENUE_URL)');
    const network = given.network ?? published?.network ?? 'mainnet';
    const builderAddress = given.builderAddress !== undefined ? given.builderAddress : (published?.builderAddress ?? null);
    return new PerpTaker(client, wallet, new PerpVenueClient(url, network), builderAddress);
  }

  /** A `quoteLimit` from the venue's book when the taker gave none: the touch moved `slippageBp` against the taker. */
  async defaultLimit(instrumentId: string, side: Side, size: string, slippageBp = 100): Promise<string> {
    return perpDefaultLimit(side, size, await this.venue.touch(perpCoin(instrumentId)), slippageBp);
  }

  /**
   * Approves the quote's builder fee rate from the main wallet unless the venue already holds an
   * approval at or above it. Returns the rate approved now, or null when nothing was needed.
   */
  async ensureBuilderFee(tenthBp: number | null | undefined): Promise<number | null> {
    if (tenthBp == null) return null;
    if (!this.builderAddress) throw new Error('the quote carries a builder fee but the builder address is unknown');
    const builder = this.builderAddress as Address;
    if ((await this.venue.approvedBuilderFee(this.wallet.address, builder)) >= tenthBp) return null;
    await this.venue.approveBuilderFee(this.wallet, builder, tenthBp);
    return tenthBp;
  }

  /** The signed `perpTakerOrder` for `quote` on `rfq`: `a` read fresh from the venue's `meta` (rule 4). */
  async order(rfq: Pick<Rfq, 'instrumentId' | 'side'>, quote: Pick<Quote, 'makerPays' | 'makerReceives' | 'builderFeeTenthBp'>): Promise<SignedVenueOrder> {
    const asset = await this.venue.asset(perpCoin(rfq.instrumentId));
    return signTakerOrder(this.wallet, { side: rfq.side, quote, asset, builderAddress: this.builderAddress }, this.venue.network, this.#nonces);
  }

  /** Builder fee, order, accept: the 202 means parsed, not executed (follow the RFQ and the quote). */
  async accept(rfq: Pick<Rfq, 'id' | 'instrumentId' | 'side'>, quote: Quote, expectedVersion = quote.version): Promise<{ order: SignedVenueOrder }> {
    await this.ensureBuilderFee(quote.builderFeeTenthBp);
    const order = await this.order(rfq, quote);
    await this.client.accept(rfq.id, { quoteId: quote.quoteId, expectedVersion, perpTakerOrder: order });
    return { order };
  }

  /**
   * A perp SWEEP: ranks `quotes` (the RFQ's, latest versions) as the service ranks the quotes an
   * accept names, approves the selected quotes' builder rate when needed, signs one IOC for the
   * selected base at the worst selected maker price, and accepts naming the selected quotes in
   * rank order at the versions ranked (a quote that moved meanwhile is a 409, not a refused
   * order). Throws `SweepShortOfMinimum` (nothing sent) when they cannot reach `minFillQty`.
   * The 202 means parsed, not executed: follow the RFQ's `fills`.
   */
  async acceptSweep(rfq: PerpSweepRfq, quotes: readonly Quote[], options: PerpSweepOptions = {}): Promise<PerpSweepAccepted> {
    const [asset, takerFeeTenthBp] = await Promise.all([
      this.venue.asset(perpCoin(rfq.instrumentId)),
      options.takerFeeTenthBp ?? this.#takerFeeOf(rfq.instrumentId),
    ]);
    const plan = planPerpSweep(rfq, quotes, { szDecimals: asset.szDecimals, takerFeeTenthBp, now: options.now ?? Date.now() });
    const approvedBuilderFeeTenthBp = await this.ensureBuilderFee(plan.builderFeeTenthBp);
    const order = await signTakerOrderTerms(
      this.wallet,
      { side: rfq.side, asset, s: plan.s, p: plan.p, builderFeeTenthBp: plan.builderFeeTenthBp, builderAddress: this.builderAddress, reduceOnly: options.reduceOnly },
      this.venue.network,
      this.#nonces,
    );
    const accepted = await this.client.acceptSweep(rfq.id, { quotes: plan.quotes, perpTakerOrder: order });
    return { plan, order, accepted, approvedBuilderFeeTenthBp };
  }

  async #takerFeeOf(instrumentId: string): Promise<number> {
    const instrument = (await this.client.instruments()).instruments.find((i) => i.instrumentId === instrumentId);
    if (!instrument) throw new Error(`the service lists no instrument ${instrumentId}`);
    return instrument.takerFeeTenthBp;
  }
}
