/**
 * Taking a perp quote (spec "Perp taker order shape and signing rules"; DESIGN.md 9.3): find the
 * venue (its URL, network and the service's builder address), approve the builder fee from the
 * main wallet when the approval is below the quote's rate, sign the taker's IOC for the chosen
 * quote with the SDK and accept with it. The service answers 202 before it checks the order; a
 * refused order turns the quote FAILED and leaves the RFQ PENDING, which `acceptPerp`'s caller
 * sees on the quote.
 *
 *   const taker = await PerpTaker.connect(client, privateKeyToAccount(key));
 *   await taker.accept(rfq, quote);
 */
import type { Address, LocalAccount } from 'viem';
import { ApiError } from './http.ts';
import { perpCoin, perpDefaultLimit, PerpVenueClient, signTakerOrder, VenueNonces, type SignedVenueOrder, type VenueNetwork } from './perp-order.ts';
import type { RfqClient } from './rfq-client.ts';
import type { Quote, Rfq, Side } from './types.ts';

export interface PerpVenueSettings {
  /** The venue's API base URL (the embedded stack publishes its simulator's in `GET /v1/rfq/network`). */
  url?: string;
  network?: VenueNetwork;
  /** The service's builder address for this environment (published out of band; the embedded stack in `network`). */
  builderAddress?: string | null;
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
}
