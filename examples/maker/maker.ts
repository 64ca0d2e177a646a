/**
 * A reference market maker for the RFQ service, small enough to copy. It
 * 1. signs in with its wallet key (SIWE) and must come back maker-scoped;
 * 2. streams a price ladder per instrument on `/v1/rfq/prices/ws` around a reference price that
 *    moves (a bounded random walk from a seeded generator);
 * 3. holds `openRfqs` per instrument and `quoteStatus` on `/v1/rfq/ws`, and on start (and after
 *    every reconnect) also reads the open RFQs over REST, since `openRfqs` has no baseline;
 * 4. quotes each open RFQ over REST from its own price, and re-quotes (same quoteId, the version
 *    advances) whenever its price for that RFQ moves while the auction is open;
 * 5. on `quoteStatus` SELECTED with a permit, relays it through its wrapper before
 *    `settlementDeadline` (relay.ts), one transaction at a time (one wallet nonce sequence);
 * 6. protects itself (docs/maker-integration.md, "Maker protection"): its session asks for cancel on disconnect (on by
 *    default), and an instrument with a `protection` setting is guarded by market-maker
 *    protection; when it trips, the maker stops quoting that instrument and resets it after its
 *    cool-down; and a dead man's switch (`cancelAllAfterMs`, 30 s by default) that it pushes
 *    back every third of its timeout, so a maker process that hangs without closing its socket
 *    still has its quotes cancelled.
 * Perp instruments (`<COIN>-USDC-PERP`) are priced from the venue's book instead (pricing.ts
 * `perpMakerPrice`), and each quote carries the maker's venue order and its cancel, signed with
 * the venue SDK (`perpMakerOrder`, `perpMakerCancel`); the service executes them at the venue, so
 * there is nothing to relay. The maker's wallet signs them here; production should use a
 * dedicated API wallet in production (`perpSigner`). On a SWEEP RFQ, spot or perp, the maker
 * quotes its part of it and lets the service cut that (`allOrNone: false`); on a perp the part is
 * a share of the RFQ on the venue's size grid (pricing.ts `perpSweepPart`), its venue order for it.
 * Failures (refused quotes, relay reverts, socket loss, quotes that expire) are logged, never fatal.
 *
 *   const maker = new ReferenceMaker({ baseUrl, privateKey, instruments: [{ instrumentId: 'ETH-USDC-SPOT', referencePrice: '3000', spreadBp: 10, maxBaseQty: '50', levelSize: '5' }] });
 *   await maker.start();
 *   ...
 *   await maker.stop();
 */
import { createPublicClient, createWalletClient, defineChain, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ApiError } from '../../src/client/http.ts';
import { PriceIngestClient } from '../../src/client/price-ingest.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import type { RfqWsSession } from '../../src/client/ws-session.ts';
import type { MakerQuote, OpenRfq } from '../../src/client/types.ts';
import type { ProtectionFrame } from '../../src/client/frames.ts';
import { formatAmount, parseAmount } from '../../src/domain/money/index.ts';
import { isPerpInstrument, perpCoin, perpMakerLegs, PerpVenueClient, signMakerOrders, VenueNonces, VENUE_MIN_ORDER_USDC, type VenueNetwork } from '../../src/client/perp-order.ts';
import { ladder, perpMakerPrice, perpSweepPart, quoteLegs, seededRandom, stepPrice, type QuoteLegs, type TokenScale } from './pricing.ts';
import { relaySettlement, settleCall, type ChainToken, type RelayChain } from './relay.ts';

export interface MakerInstrument {
  instrumentId: string;
  /** Where the walk starts and stays around, in the quote token per one base token ("3000"). */
  referencePrice: string;
  /** Our full bid-ask spread on quotes, basis points. */
  spreadBp: number;
  /** Largest RFQ we quote, in the base token ("50"). */
  maxBaseQty: string;
  /**
   * On a SWEEP RFQ (several makers may fill it), the most we quote of it, in the base token: a
   * larger RFQ gets a quote for this much that the service may cut further (`allOrNone: false`).
   * Default `maxBaseQty`.
   */
  sweepBaseQty?: string;
  /**
   * Perp only: on a SWEEP RFQ, the share of it we quote, basis points (default 5000), at most
   * `sweepBaseQty`, on the venue's size grid. A share rather than a fixed size, since a perp is
   * priced from the venue's book with no size scale of ours: any RFQ is then filled by a few
   * makers, none carrying the whole. A part under the venue's minimum order value is not quoted
   * alone: the whole RFQ is, when it fits `maxBaseQty`.
   */
  sweepShareBp?: number;
  /** Depth of each ladder level, in the base token ("5"). */
  levelSize: string;
  ladderLevels?: number;
  /** Largest move of the reference price per tick, basis points (default 3). */
  maxStepBp?: number;
  /** The walk stays within referencePrice +- bandBp (default 200). */
  bandBp?: number;
  /** Market-maker protection for this instrument (PUT /v1/rfq/maker/protection), set at start. */
  protection?: { windowMs: number; maxSelectedQuotes?: number; maxSelectedNotional?: string };
}

export type LogLevel = 'info' | 'warn' | 'error';

export interface ReferenceMakerOptions {
  /** The service, `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** The maker's wallet key: it signs in with it and relays settlements from it. */
  privateKey: Hex;
  instruments: MakerInstrument[];
  /** JSON-RPC of the settlement chain; default: `rpcUrl` from `GET /v1/rfq/network`. */
  rpcUrl?: string;
  /** Token symbol -> on-chain address and decimals; default: from `GET /v1/rfq/network`. */
  tokens?: Record<string, ChainToken>;
  /** Seeds the price walk (same seed, same walk). */
  seed?: number;
  /** How often the price moves, the ladder is re-sent and open auctions are re-priced. */
  tickMs?: number;
  /** Sent as the quote's acceptance window; omitted: the quote stands until the auction closes. */
  acceptableForMs?: number;
  siweDomain?: string;
  chainId?: number;
  /** Ask the service to cancel our open quotes when our session ends (default true). */
  cancelOnDisconnect?: boolean;
  /** After market-maker protection trips, wait this long before resetting it and quoting again (default 30 s). */
  protectionCoolDownMs?: number;
  /**
   * The dead man's switch's timeout (POST /v1/rfq/maker/cancel-all-after, 1,000 to 600,000 ms;
   * default 30 s; 0 leaves it off): pushed back every third of it while the maker runs.
   */
  cancelAllAfterMs?: number;
  /** A label in log lines (several makers in one process). */
  name?: string;
  /**
   * Discloses the maker under this public alias (PUT /v1/rfq/maker/profile) at start, so takers
   * may name or exclude it; absent, the maker stays anonymous and is reached by the broadcast only.
   */
  alias?: string;
  /** The perp venue; default: `venue` from `GET /v1/rfq/network` (its `url` is published by the embedded stack). */
  venue?: { url: string; network: VenueNetwork };
  /** Signs the perp venue orders: an API wallet the maker approved at the venue; default the maker's own key. */
  perpSigner?: Hex;
  log?: (level: LogLevel, message: string) => void;
}

interface Market {
  config: MakerInstrument;
  base: TokenScale;
  quote: TokenScale;
  mid: bigint;
  maxBaseQty: bigint;
  sweepBaseQty: bigint;
  levelSize: bigint;
}

/** A perp instrument: priced from the venue's book, `spreadBp` and `maxBaseQty` from its config. */
interface PerpMarket {
  config: MakerInstrument;
  coin: string;
  maxBaseQty: bigint;
}

/** The share of a perp SWEEP RFQ we quote when the config names none: half, so two makers at least fill one. */
const DEFAULT_SWEEP_SHARE_BP = 5000;

/** Base sizes compared as exact integers at a precision finer than any venue size grid. */
const SIZE_DECIMALS = 18;

interface Auction {
  rfq: OpenRfq;
  quoteId: string | null;
  /** The legs last sent, to re-quote only when our price for this RFQ moved. */
  sent: string | null;
  busy: boolean;
}

/** Auctions tracked at once; RFQs beyond it are not quoted (bounded memory under a flood). */
const MAX_AUCTIONS = 500;
const CLOSED_QUOTE = new Set(['AUCTION_CLOSED', 'RFQ_NOT_PENDING', 'QUOTE_NOT_OPEN', 'QUOTE_NOT_ACCEPTABLE', 'NOT_FOUND']);

export class ReferenceMaker {
  readonly options: ReferenceMakerOptions;
  readonly address: Address;
  readonly stats = { quotes: 0, requotes: 0, refused: 0, relayed: 0, relayFailures: 0, settled: 0, protectionTrips: 0 };
  readonly client: RfqClient;
  #session: RfqWsSession | null = null;
  #ingest: PriceIngestClient | null = null;
  #chain: RelayChain | null = null;
  #tokens = new Map<string, ChainToken>();
  readonly #markets = new Map<string, Market>();
  readonly #perpMarkets = new Map<string, PerpMarket>();
  /** Instruments (spot or perp) market-maker protection holds: each with its scheduled reset. */
  readonly #cooling = new Map<string, NodeJS.Timeout>();
  #venue: PerpVenueClient | null = null;
  readonly #venueNonces = new VenueNonces();
  readonly #auctions = new Map<string, Auction>();
  /** quoteIds whose relay was attempted by this process: a replayed SELECTED is relayed once. */
  readonly #relayed = new Set<string>();
  #relayQueue: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;
  #switchTimer: NodeJS.Timeout | null = null;
  #stopped = false;
  readonly #random: () => number;

  constructor(options: ReferenceMakerOptions) {
    this.options = options;
    this.address = privateKeyToAccount(options.privateKey).address;
    this.client = new RfqClient(options.baseUrl);
    this.#random = seededRandom(options.seed ?? 1);
  }

  #log(level: LogLevel, message: string): void {
    const line = `${this.options.name ?? `maker ${this.address.slice(0, 8)}`}: ${message}`;
    if (this.options.log) this.options.log(level, line);
    else (level === 'info' ? console.log : console.error)(line);
  }

  async start(): Promise<void> {
    const account = privateKeyToAccount(this.options.privateKey);
    const login = await this.client.signIn(account, { domain: this.options.siweDomain ?? 'localhost', chainId: this.options.chainId ?? 31337 });
    if (!login.makerId) throw new Error(`${account.address} is not a registered active maker (ask the operator to register it)`);
    if (this.options.alias !== undefined) await this.client.setProfile(this.options.alias);
    const spot = this.options.instruments.filter((i) => !isPerpInstrument(i.instrumentId));
    if (spot.length > 0) await this.#connectChain(account);
    if (spot.length < this.options.instruments.length) await this.#connectVenue();
    const { instruments } = await this.client.instruments();
    for (const config of this.options.instruments) {
      const instrument = instruments.find((i) => i.instrumentId === config.instrumentId);
      if (!instrument) throw new Error(`unknown instrument ${config.instrumentId}`);
      if (config.protection) await this.client.putProtection({ instrumentId: config.instrumentId, ...config.protection });
      if (instrument.type === 'PERP') {
        this.#perpMarkets.set(config.instrumentId, { config, coin: perpCoin(config.instrumentId), maxBaseQty: parseAmount(config.maxBaseQty, SIZE_DECIMALS, { field: 'maxBaseQty', positive: true }) });
        continue;
      }
      const base = this.#scale(instrument.base);
      const quote = this.#scale(instrument.quote);
      this.#markets.set(config.instrumentId, {
        config,
        base,
        quote,
        mid: parseAmount(config.referencePrice, quote.decimals, { field: 'referencePrice', positive: true }),
        maxBaseQty: parseAmount(config.maxBaseQty, base.decimals, { field: 'maxBaseQty', positive: true }),
        sweepBaseQty: parseAmount(config.sweepBaseQty ?? config.maxBaseQty, base.decimals, { field: 'sweepBaseQty', positive: true }),
        levelSize: parseAmount(config.levelSize, base.decimals, { field: 'levelSize', positive: true }),
      });
    }

    const credentials = this.client.credentials!;
    this.#ingest = new PriceIngestClient({ baseUrl: this.options.baseUrl, credentials, timestamps: this.client.http.timestamps });
    this.#ingest.on('frame', (frame) => {
      if (frame.kind === 'error') this.#log('warn', `price ingest refused a ladder: ${String((frame as { code?: unknown }).code)} ${String((frame as { message?: unknown }).message)}`);
    });
    this.#watchLink(this.#ingest, 'price ingest');
    await this.#ingest.connect();
    this.#publishLadders();

    const cancelOnDisconnect = this.options.cancelOnDisconnect ?? true;
    const session = this.client.wsSession({ cancelOnDisconnect });
    this.#session = session;
    session.on('frame', (frame) => {
      if (frame.kind === 'rfq') this.#onOpenRfq(frame as unknown as OpenRfq);
      else if (frame.kind === 'quoteStatus') this.#onQuoteStatus(frame as unknown as MakerQuote);
      else if (frame.kind === 'protection') this.#onProtection(frame as unknown as ProtectionFrame);
    });
    session.on('open', (health) => {
      if (cancelOnDisconnect && health.cancelOnDisconnect !== true) this.#log('warn', 'the service did not grant cancel on disconnect to this session');
    });
    this.#watchLink(session, 'rfq session');
    // After a reconnect: RFQs opened while we were away never arrive on the topic.
    let opened = false;
    session.on('open', () => {
      if (opened) void this.#readOpenRfqs();
      opened = true;
    });
    await session.connect();
    await session.subscribe('quoteStatus');
    for (const instrumentId of [...this.#markets.keys(), ...this.#perpMarkets.keys()]) await session.subscribe('openRfqs', { instrumentId });
    await this.#readOpenRfqs();

    this.#timer = setInterval(() => this.#tick(), this.options.tickMs ?? 1000);
    await this.#armSwitch();
    this.#log('info', `quoting ${[...this.#markets.keys(), ...this.#perpMarkets.keys()].join(', ')} from ${this.address}`);
  }

  /** Stops quoting, closes both sockets and waits (bounded) for a relay in flight. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    if (this.#switchTimer) clearInterval(this.#switchTimer);
    for (const timer of this.#cooling.values()) clearTimeout(timer);
    // A stop on purpose: cancel on disconnect takes the quotes; the switch is not left armed.
    if ((this.options.cancelAllAfterMs ?? 30_000) > 0) await this.client.cancelAllAfter(0).catch((error: unknown) => this.#log('warn', `disarming the dead man's switch failed: ${describe(error)}`));
    this.#session?.close();
    this.#ingest?.close();
    await Promise.race([this.#relayQueue, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  }

  /** Our current reference price of an instrument, quote token per base token. */
  mid(instrumentId: string): bigint | undefined {
    return this.#markets.get(instrumentId)?.mid;
  }

  #scale(symbol: string): TokenScale {
    const token = this.#tokens.get(symbol);
    if (!token) throw new Error(`no token ${symbol} in the network description`);
    return { symbol, decimals: token.decimals };
  }

  async #connectChain(account: ReturnType<typeof privateKeyToAccount>): Promise<void> {
    let rpcUrl = this.options.rpcUrl;
    let tokens = this.options.tokens;
    if (!rpcUrl || !tokens) {
      const network = await this.client.network();
      rpcUrl ??= network.rpcUrl;
      tokens ??= Object.fromEntries(network.tokens.map((t) => [t.symbol, { address: t.address as Address, decimals: t.decimals }]));
    }
    if (!rpcUrl) throw new Error('no rpcUrl: pass one (the service publishes it only in the embedded stack)');
    this.#tokens = new Map(Object.entries(tokens));
    const probe = createPublicClient({ transport: http(rpcUrl) });
    const chain = defineChain({ id: await probe.getChainId(), name: 'settlement', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
    this.#chain = {
      publicClient: createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 250 }),
      walletClient: createWalletClient({ account, chain, transport: http(rpcUrl), pollingInterval: 250 }),
    };
  }

  async #connectVenue(): Promise<void> {
    let venue = this.options.venue;
    if (!venue) {
      const published = (await this.client.network()).venue;
      if (!published?.url) throw new Error('perp instruments need the venue: pass venue (the service publishes its URL only in the embedded stack)');
      venue = { url: published.url, network: published.network };
    }
    this.#venue = new PerpVenueClient(venue.url, venue.network);
  }

  #watchLink(socket: PriceIngestClient | RfqWsSession, label: string): void {
    socket.on('disconnected', ({ code, reason }) => !this.#stopped && this.#log('warn', `${label} lost (${code}${reason ? ` ${reason}` : ''}), reconnecting`));
    socket.on('closed', ({ reason, error }) => !this.#stopped && this.#log('error', `${label} closed for good: ${error?.message ?? reason}`));
  }

  #tick(): void {
    for (const market of this.#markets.values()) {
      market.mid = stepPrice(market.mid, { start: parseAmount(market.config.referencePrice, market.quote.decimals, { field: 'referencePrice' }), maxStepBp: market.config.maxStepBp ?? 3, bandBp: market.config.bandBp ?? 200 }, this.#random);
    }
    this.#publishLadders();
    const now = Date.now();
    for (const [rfqId, auction] of this.#auctions) {
      if (auction.rfq.auctionEndsAt <= now) this.#auctions.delete(rfqId);
      else void this.#quote(auction);
    }
  }

  #publishLadders(): void {
    for (const [instrumentId, market] of this.#markets) {
      const levels = ladder(market.mid, { spreadBp: market.config.spreadBp, levels: market.config.ladderLevels ?? 3, levelSize: market.levelSize }, market.base, market.quote);
      this.#ingest?.publish({ instrumentId, ...levels });
    }
  }

  async #readOpenRfqs(): Promise<void> {
    try {
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const result = await this.client.openRfqs({ limit: 100, ...(cursor ? { cursor } : {}) });
        for (const rfq of result.items) this.#onOpenRfq(rfq);
        if (!result.hasMore || !result.nextCursor) break;
        cursor = result.nextCursor;
      }
    } catch (error) {
      this.#log('warn', `could not list open RFQs: ${describe(error)}`);
    }
  }

  #onOpenRfq(rfq: OpenRfq): void {
    if (this.#stopped || this.#auctions.has(rfq.id) || !(this.#markets.has(rfq.instrumentId) || this.#perpMarkets.has(rfq.instrumentId))) return;
    if (rfq.auctionEndsAt <= Date.now()) return;
    if (this.#auctions.size >= MAX_AUCTIONS) {
      this.#log('warn', `tracking ${MAX_AUCTIONS} auctions already; not quoting ${rfq.id}`);
      return;
    }
    const auction: Auction = { rfq, quoteId: null, sent: null, busy: false };
    this.#auctions.set(rfq.id, auction);
    void this.#quote(auction);
  }

  /** Our legs for an RFQ, and on a perp the signer of the venue orders that go with them (signed once we send). */
  async #legsFor(rfq: OpenRfq): Promise<{ legs: QuoteLegs; divisible?: boolean; perp?: () => Promise<Record<string, unknown>> } | null> {
    const market = this.#markets.get(rfq.instrumentId);
    if (market) {
      // A SWEEP RFQ may be filled by several makers: we quote our part of it, which the service may cut.
      const part = rfq.fill === 'SWEEP' ? sweepPart(rfq.baseQty, market.sweepBaseQty, market.base.decimals) : null;
      const legs = quoteLegs(part === null ? rfq : { side: rfq.side, baseQty: part }, market.mid, market.config.spreadBp, market.maxBaseQty, market.base, market.quote);
      return legs ? { legs, ...(part !== null ? { divisible: true } : {}) } : null;
    }
    const perp = this.#perpMarkets.get(rfq.instrumentId)!;
    const sweep = rfq.fill === 'SWEEP';
    // A sweep larger than we take is still quoted: for our part of it.
    if (!sweep && parseAmount(rfq.baseQty, SIZE_DECIMALS, { field: 'baseQty' }) > perp.maxBaseQty) return null;
    // The coin's index and the book are read for each price: both are the venue's, not ours.
    const [asset, touch] = await Promise.all([this.#venue!.asset(perp.coin), this.#venue!.touch(perp.coin)]);
    const price = perpMakerPrice(rfq.side, touch, perp.config.spreadBp, asset.szDecimals);
    if (price === null) return null;
    const size = sweep
      ? perpSweepPart(rfq.baseQty, { shareBp: perp.config.sweepShareBp ?? DEFAULT_SWEEP_SHARE_BP, maxBaseQty: perp.config.sweepBaseQty ?? perp.config.maxBaseQty, szDecimals: asset.szDecimals, price, minNotional: VENUE_MIN_ORDER_USDC })
      : rfq.baseQty;
    if (size === null) return null;
    // On a sweep our order is for our part: s the part, p its quote leg over it, as for a whole RFQ.
    const order = { side: rfq.side, asset, size, price };
    const { notional, ...legs } = perpMakerLegs(order);
    // The venue refuses an order under its minimum value.
    if (notional < VENUE_MIN_ORDER_USDC) return null;
    const signer = privateKeyToAccount(this.options.perpSigner ?? this.options.privateKey);
    return { legs, ...(sweep ? { divisible: true } : {}), perp: () => signMakerOrders(signer, order, this.#venue!.network, this.#venueNonces) };
  }

  /** Quotes, or re-quotes when our legs for this RFQ changed; one request per auction at a time. */
  async #quote(auction: Auction): Promise<void> {
    if (auction.busy || this.#stopped || this.#cooling.has(auction.rfq.instrumentId)) return;
    auction.busy = true;
    const { rfq } = auction;
    const requote = auction.quoteId !== null;
    let legs: QuoteLegs | undefined;
    try {
      const priced = await this.#legsFor(rfq);
      if (!priced) return;
      legs = priced.legs;
      const key = `${legs.makerPays.amount}/${legs.makerReceives.amount}`;
      if (key === auction.sent) return;
      const result = await this.client.submitQuote({
        rfqId: rfq.id,
        instrumentId: rfq.instrumentId,
        side: rfq.side,
        ...legs,
        ...(priced.divisible ? { allOrNone: false } : {}),
        // A re-quote carries a new (signer, nonce) pair: signed afresh each time.
        ...(priced.perp ? await priced.perp() : {}),
        ...(this.options.acceptableForMs ? { acceptableForMs: this.options.acceptableForMs } : {}),
      });
      if (requote) this.stats.requotes++;
      else this.stats.quotes++;
      auction.quoteId = result.quoteId;
      auction.sent = key;
      this.#log('info', `${requote ? 're-quoted' : 'quoted'} ${rfq.side} ${rfq.baseQty} ${rfq.instrumentId} (${rfq.id}): pays ${legs.makerPays.amount} ${legs.makerPays.token}, receives ${legs.makerReceives.amount} ${legs.makerReceives.token} [${result.quoteId} v${result.version}]`);
    } catch (error) {
      // Stopped meanwhile (the node may be draining too): the failure is the stop, not news.
      if (this.#stopped) return;
      this.stats.refused++;
      if (error instanceof ApiError && error.code === 'MAKER_PROTECTION_TRIGGERED') {
        // The trip's frame may not have reached us yet (or was missed across a reconnect).
        this.#coolDown(rfq.instrumentId);
      } else if (error instanceof ApiError && CLOSED_QUOTE.has(error.code)) {
        // Selected, expired or closed meanwhile: nothing more to do on this auction.
        this.#auctions.delete(rfq.id);
      } else {
        // Keep it and try again next tick (transient failure or a price the service refused).
        this.#log('warn', `quote on ${rfq.id} refused: ${describe(error)}`);
      }
    } finally {
      auction.busy = false;
    }
  }

  #onQuoteStatus(quote: MakerQuote): void {
    const auction = this.#auctions.get(quote.rfqId);
    const ours = auction?.quoteId === quote.quoteId || this.#relayed.has(quote.quoteId);
    switch (quote.status) {
      case 'SUBMITTED':
        return;
      case 'SELECTED':
        this.#auctions.delete(quote.rfqId);
        this.#onSelected(quote);
        return;
      case 'SETTLED':
        this.#auctions.delete(quote.rfqId);
        if (ours) {
          this.stats.settled++;
          const how = quote.settlementMode === 'perp' ? `at the venue: our order filled ${quote.perpMakerFilledSize ?? '?'}, the taker's ${quote.perpFilledSize ?? '?'} at ${quote.perpFillAvgPx ?? '?'}` : `in tx ${quote.txHash ?? '?'}`;
          this.#log('info', `settled ${quote.quoteId} (${quote.rfqId}) ${how}`);
        }
        return;
      case 'FAILED':
        this.#auctions.delete(quote.rfqId);
        if (ours) this.#log('warn', `settlement of ${quote.quoteId} (${quote.rfqId}) FAILED`);
        return;
      default:
        // NOT_SELECTED, EXPIRED, CANCELLED: the auction is over for us.
        this.#auctions.delete(quote.rfqId);
    }
  }

  /** Arms the dead man's switch and pushes it back every third of its timeout; a failed push is retried at the next. */
  async #armSwitch(): Promise<void> {
    const timeoutMs = this.options.cancelAllAfterMs ?? 30_000;
    if (timeoutMs === 0) return;
    await this.client.cancelAllAfter(timeoutMs);
    this.#switchTimer = setInterval(() => {
      this.client.cancelAllAfter(timeoutMs).catch((error: unknown) => this.#log('warn', `pushing back the dead man's switch failed: ${describe(error)}`));
    }, Math.floor(timeoutMs / 3));
    this.#switchTimer.unref();
  }

  /** Our protection tripped: the service cancels our open quotes there; we pause, then re-arm it. */
  #onProtection(frame: ProtectionFrame): void {
    this.stats.protectionTrips++;
    this.#log('warn', `market-maker protection tripped on ${frame.instrumentId} (${frame.reason}); pausing it`);
    this.#coolDown(frame.instrumentId);
  }

  #coolDown(instrumentId: string): void {
    if (!(this.#markets.has(instrumentId) || this.#perpMarkets.has(instrumentId)) || this.#cooling.has(instrumentId) || this.#stopped) return;
    const timer = setTimeout(() => {
      this.client.resetProtection(instrumentId).then(
        () => {
          this.#cooling.delete(instrumentId);
          this.#log('info', `market-maker protection on ${instrumentId} reset; quoting again`);
        },
        (error: unknown) => {
          // Try again after another cool-down rather than quote into a refusal.
          this.#cooling.delete(instrumentId);
          this.#log('warn', `reset of ${instrumentId} protection failed: ${describe(error)}`);
          this.#coolDown(instrumentId);
        },
      );
    }, this.options.protectionCoolDownMs ?? 30_000);
    timer.unref();
    this.#cooling.set(instrumentId, timer);
  }

  #onSelected(quote: MakerQuote): void {
    if (this.#relayed.has(quote.quoteId)) return;
    if (quote.settlementMode === 'perp') {
      // The service sends our signed order, then the taker's, then our cancel: nothing to do here.
      this.#relayed.add(quote.quoteId);
      this.#log('info', `selected ${quote.quoteId} (${quote.rfqId}): the service executes our signed order at the venue`);
      return;
    }
    const call = settleCall(quote, this.#tokens);
    if (!call) {
      this.#log('warn', `won ${quote.quoteId} (${quote.rfqId}) but it carries no permit (settlement mode ${quote.settlementMode}); nothing to relay`);
      return;
    }
    this.#relayed.add(quote.quoteId);
    const deadline = quote.settlementDeadline!;
    // One relay at a time: they share the wallet's nonce sequence.
    this.#relayQueue = this.#relayQueue.then(async () => {
      if (Date.now() / 1000 > deadline) {
        this.#log('warn', `won ${quote.quoteId} but its settlementDeadline ${deadline} has passed; not relaying`);
        return;
      }
      try {
        const hash = await relaySettlement(this.#chain!, call);
        this.stats.relayed++;
        this.#log('info', `relayed ${quote.quoteId} (${quote.rfqId}) through ${call.wrapper}: tx ${hash}`);
      } catch (error) {
        this.stats.relayFailures++;
        this.#log('error', `relay of ${quote.quoteId} (${quote.rfqId}) failed: ${describe(error)}`);
      }
    });
  }
}

function describe(error: unknown): string {
  if (error instanceof ApiError) return `${error.code} ${error.message}`;
  if (error && typeof error === 'object' && 'shortMessage' in error && typeof error.shortMessage === 'string') return error.shortMessage;
  return error instanceof Error ? error.message : String(error);
}

/** Our part of a SWEEP RFQ of `baseQty`: all of it up to `cap` (raw base units), as a decimal string. */
function sweepPart(baseQty: string, cap: bigint, decimals: number): string {
  const units = parseAmount(baseQty, decimals, { field: 'baseQty', positive: true });
  return formatAmount(units < cap ? units : cap, decimals);
}
