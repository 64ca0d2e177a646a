/**
 * The omnibus worker: signs, stores and sends what `/v0` use cases committed (orders with the API
 * wallet's L1 signature, cancels, withdrawals as the omnibus's user-signed `spotSend`), resends
 * stored actions whose answer was lost, books the omnibus's fills per order, credits deposits and
 * completes withdrawals from its ledger updates, and reconciles unclear orders by client order id.
 * Every step is idempotent: a restart repeats nothing that was recorded.
 */
import { signL1Action, signUserSignedAction } from '@nktkas/hyperliquid/signing';
import { SpotSendTypes } from '@nktkas/hyperliquid/api/exchange';
import { sql, type Selectable } from 'kysely';
import { getAddress } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Logger } from 'pino';
import { PRICE_DECIMALS, venueDecimal, venueUnitsDown, venueUnitsUp } from '../../domain/v0/venue-grid.ts';
import { FILL_CLOCK_SLACK_MS } from '../../domain/perp/fills.ts';
import { bookFills, cancelUnsentOrder, failOrder, finishOrder, markOrderResting, type VenueFill } from '../../services/v0/order-outcomes.ts';
import { completeWithdrawal, failWithdrawal } from '../../services/v0/withdrawals.ts';
import { creditVenueDeposit } from '../../services/v0/credit-deposit.ts';
import { recordActionKnown, storeSignedAction } from '../../services/v0/venue-actions.ts';
import { VenueUnavailableError, type VenueSpotMeta } from '../../services/v0/venue-port.ts';
import type { V0Deps } from '../../services/v0/v0-deps.ts';
import type { V0OrdersTable } from '../../store/schema.ts';
import { advanceVenueCursor, readVenueCursor } from '../../store/venue-cursor.ts';
import { allocateNonces, postRequest, recordAnswer, sendStoredAction } from './signed-actions.ts';
import { firstStatus, type VenueExchangeReply, type VenueHttp } from './venue-http.ts';
import type { OmnibusVenue } from './omnibus-venue.ts';
import { omnibusTransferOf, type LedgerUpdate } from './ledger-update.ts';
import type { VenueStream } from '../venue-stream.ts';
import { PushedFills } from './pushed-fills.ts';

export interface OmnibusWorkerOptions {
  deps: V0Deps;
  venue: OmnibusVenue;
  http: VenueHttp;
  omnibus: PrivateKeyAccount;
  agent: PrivateKeyAccount;
  network: 'mainnet' | 'testnet';
  /** Idle pause between passes; a wake-up starts the next pass at once. */
  pollIntervalMs: number;
  /** While nothing arrives and nothing waits on the ledger, its reads back off up to this far apart (a deposit is seen within it). */
  ledgerIdleMaxMs: number;
  /**
   * While the stream is live, one REST read of the ledger this often all the same (default 60 s:
   * 20 weight a minute). The venue's pushes carry no sequence number, so a lost one would
   * otherwise go unseen until the next reconnection; an update only this read finds is logged.
   */
  ledgerReconcileMs?: number;
  exchangeTimeoutMs: number;
  infoTimeoutMs: number;
  /** An order sent without an answer is looked up by cloid after this long. */
  reconcileAfterMs: number;
  logger: Logger;
  /**
   * The omnibus's pushes (fills, order updates, ledger updates). While it is live the passes read
   * none of them over REST; at each (re)connection one REST read catches up. Null: polling only.
   */
  stream?: VenueStream | null;
  /** How long an IOC's answer waits for its fills to be pushed before reading them (default 2 s). */
  pushWaitMs?: number;
}

const BATCH = 50;
/**
 * Nonces are reserved this many at a time and handed out in memory, each block only within
 * NONCE_BLOCK_TTL_MS of its reservation (so a nonce stays near the clock, as the venue expects).
 * Unused ones are gaps, which the venue accepts: nonces only need to increase per signer.
 */
const NONCE_BLOCK = 16;
const NONCE_BLOCK_TTL_MS = 1000;
/** Orders placed at once beside the passes; more than this wait for a pass. */
const MAX_PLACING = 32;
/** USDC is one ledger token on both rails, in micro-USDC (DESIGN.md section 10), whatever the venue's weiDecimals. */
const USDC = 'USDC';
const USDC_LEDGER_DECIMALS = 6;
const NO_MATCH = /could not immediately match/i;
/**
 * A pass reuses spot metadata this old (a user's order reads it fresher): an idle worker's
 * passes cost no venue weight for it. A token listed meanwhile is known at the next read.
 */
const PASS_META_MAX_AGE_MS = 300_000;
/** The venue's cap on one `userNonFundingLedgerUpdates` reply; a full page means there may be more. */
const LEDGER_PAGE_CAP = 500;
/** Pages read in one pass at most (a long catch-up goes on in the next pass). */
const MAX_LEDGER_PAGES = 20;
/** Ledger updates are read again from this far before the cursor: an update can appear late. */
const LEDGER_OVERLAP_MS = 60_000;
const DEFAULT_LEDGER_RECONCILE_MS = 60_000;
/** The longest pause between two look-ups of an order whose cancel went out but which is still open. */
const CANCEL_LOOKUP_MAX_MS = 60_000;
const LEDGER_CURSOR = 'v0-omnibus-ledger';

interface VenueFillRow { coin: string; px: string; sz: string; side: string; time: number; hash: string; oid: number; tid: number; fee: string; feeToken: string; cloid?: string }
interface StoredRequest { id: string; request: Record<string, unknown> }
interface OrderStatusReply { status: string; order?: { order: { oid: number; sz: string; origSz: string; cloid?: string | null }; status: string } }

export class OmnibusWorker {
  readonly #o: OmnibusWorkerOptions;
  #stopped = false;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  /** Read from the store at the first pass (null until then). */
  #ledgerCursorMs: number | null = null;
  /** The ledger's and the resting orders' fill reads, each backing off while it finds nothing new. */
  readonly #ledgerReads: IdleReads;
  readonly #fillReads: IdleReads;
  /** The latest fill time read (in memory: a restart reads from its oldest live order again). */
  #fillsSeenUpToMs = 0;
  #waiters: Array<() => void> = [];
  /** Fills the stream pushed, kept a while (pushed-fills.ts). */
  readonly #pushedFills = new PushedFills();
  /** Ledger updates the stream pushed, applied by the next pass. */
  #pushedLedger: LedgerUpdate[] = [];
  /** Since the stream last went live, has a REST read caught up on the fills and on the ledger? */
  #caughtUp = { fills: false, ledger: false };
  /** Open orders whose cancel went out, looked up at the venue again: when next, and the pause that led there. */
  readonly #cancelLookups = new Map<string, { dueAt: number; pauseMs: number }>();
  /** When the stream's ledger was last checked against a REST read. */
  #ledgerReconciledAt = 0;
  /** Counts the stream's goings live: a REST read begun before the last one does not catch up. */
  #liveGeneration = 0;
  /** Orders and withdrawals being worked on right now (by a pass or by placeOrder): nobody else touches them. */
  readonly #claimed = new Set<string>();
  readonly #placing = new Set<Promise<void>>();
  readonly #nonceBlocks = new Map<string, { next: number; last: number; at: number }>();
  readonly #reservingNonces = new Map<string, Promise<void>>();

  constructor(options: OmnibusWorkerOptions) {
    this.#o = options;
    this.#ledgerReads = new IdleReads(options.pollIntervalMs, options.ledgerIdleMaxMs);
    this.#fillReads = new IdleReads(options.pollIntervalMs, options.ledgerIdleMaxMs);
    options.venue.onWake((order) => (order === undefined ? this.settled() : this.placeOrder(order)));
  }

  start(): void {
    this.#o.stream?.start({
      fills: (fills) => {
        this.#pushedFills.add(fills, this.#now());
        this.#run();
      },
      ledger: (updates) => {
        this.#pushedLedger.push(...(updates as LedgerUpdate[]));
        this.#run();
      },
      // An order's end (filled, cancelled by the venue, rejected) is looked at by the next pass.
      orderUpdates: () => this.#run(),
      live: () => {
        // What happened while it was not live is read once over REST.
        this.#caughtUp = { fills: false, ledger: false };
        this.#liveGeneration++;
        this.wake();
      },
      down: () => this.wake(),
    });
    this.wake();
  }

  /** The stream is live and caught up: fills and ledger updates come pushed, nothing is polled. */
  get pushing(): boolean {
    return this.#pushing('fills') && this.#pushing('ledger');
  }

  /** Whether the passes may take `what` from the stream rather than read it over REST. */
  #pushing(what: 'fills' | 'ledger'): boolean {
    return this.#o.stream?.live === true && this.#caughtUp[what];
  }

  /** Runs a pass now (or right after the current one); the ledger is read in it. */
  wake(): void {
    if (this.#stopped) return;
    this.#ledgerReads.reset();
    this.#fillReads.reset();
    this.#run();
  }

  #run(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#running = this.#loop();
  }

  /**
   * Resolves once every order being placed at once has finished and a complete pass has run
   * after that (tests and the CLI wait on it): what the venue did by then is in the book.
   */
  async settled(): Promise<void> {
    await Promise.all(this.#placing);
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      this.wake();
      this.#again = true;
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#o.stream?.stop();
    await this.#running;
    await Promise.all(this.#placing);
    for (const w of this.#waiters.splice(0)) w();
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      const waiters = this.#waiters.splice(0);
      try {
        await this.pass();
      } catch (error) {
        this.#o.logger.warn({ err: error }, 'v0 omnibus pass failed');
      }
      for (const w of waiters) w();
    } while (this.#again && !this.#stopped);
    this.#running = null;
    if (!this.#stopped) this.#timer = setTimeout(() => this.#run(), this.#o.pollIntervalMs);
  }

  /**
   * Places one just-recorded order on its own, at once: signed and stored, sent, its answer
   * applied and its fills booked, without waiting for (or behind) a pass. Whatever it cannot
   * finish (no answer, the venue down, too many at once) the passes finish as for any order.
   */
  placeOrder(order: Selectable<V0OrdersTable>): Promise<void> {
    if (this.#stopped || this.#placing.size >= MAX_PLACING || !this.#claim(order.id)) return Promise.resolve();
    const placing = this.#place(order).finally(() => {
      this.#placing.delete(placing);
      this.#release(order.id);
    });
    this.#placing.add(placing);
    return placing;
  }

  async #place(order: Selectable<V0OrdersTable>): Promise<void> {
    const orderId = order.id;
    try {
      const meta = await this.#o.venue.spotMeta();
      // The row as createOrder committed it, not read back. If a pass signed it meanwhile, storing
      // a second action does nothing (one per order and kind) and nothing is sent. A cancel
      // requested meanwhile is sent after it, as for any resting order.
      // Stored as SENT: it goes out right below (a crash first leaves it to the reconciler).
      const stored = await this.#signOrder(order, meta, 'SENT');
      if (stored === null) return;
      const outcome = await postRequest(this.#o.http, stored.request, this.#o.exchangeTimeoutMs);
      if (!outcome.answered) {
        this.#o.logger.warn({ action: stored.id, error: outcome.error }, 'venue order unanswered; left to the reconciler');
        return;
      }
      const status = firstStatus(outcome.reply);
      const filled = typeof status === 'object' && status !== null && 'filled' in status ? (status as { filled: { totalSz: string; oid: number } }).filled : null;
      if (filled === null) {
        await recordAnswer(this.#db, stored.id, outcome.reply, this.#now());
        await this.#applyReply('order', orderId, outcome.reply, meta);
        // A GTC order may have filled in part before it rested.
        if (typeof status === 'object' && status !== null && 'resting' in status) await this.#bookFills(meta, orderId);
        return;
      }
      // An IOC answered `filled`: its answer is recorded while its fills are read, and the fills,
      // the venue's total and the order's end are then one transaction.
      const base = meta.tokens.find((t) => t.name === order.base_token);
      const [, fills] = await Promise.all([recordAnswer(this.#db, stored.id, outcome.reply, this.#now()), base ? this.#iocFills(order, filled, base.weiDecimals) : null]);
      if (!base || fills === null) {
        await this.#finishFilled(orderId, String(filled.totalSz), Number(filled.oid), meta);
        return;
      }
      const decimals = await this.#ledgerDecimals();
      const own = fills.filter((fill) => fill.cloid?.toLowerCase() === order.cloid || fill.oid === Number(filled.oid)).map((fill) => this.#venueFill(fill, base.weiDecimals, decimals));
      await bookFills(this.#o.deps, orderId, own, { baseWeiDecimals: base.weiDecimals }, { venueFilled: venueUnitsDown(String(filled.totalSz), base.weiDecimals), oid: Number(filled.oid) });
    } catch (error) {
      this.#o.logger.warn({ err: error, order: orderId }, 'v0 order not placed at once; left to the worker pass');
    }
  }

  /**
   * An IOC's fills: as pushed, once they add up to the venue's total (waited for a moment: a push
   * can come after the answer), else read over REST.
   */
  async #iocFills(order: Selectable<V0OrdersTable>, filled: { totalSz: string; oid: number }, weiDecimals: number): Promise<VenueFillRow[] | null> {
    if (this.#o.stream?.live === true) {
      const total = venueUnitsDown(String(filled.totalSz), weiDecimals);
      const oid = Number(filled.oid);
      const pushed = await this.#pushedFills.waitFor(
        (fill) => fill.cloid?.toLowerCase() === order.cloid || fill.oid === oid,
        (fills) => fills.reduce((sum, fill) => sum + venueUnitsDown(fill.sz, weiDecimals), 0n) >= total,
        this.#o.pushWaitMs ?? 2_000,
      );
      if (pushed !== null) return pushed;
    }
    return this.#readFills(order.created_at);
  }

  /** The omnibus's fills since `sinceMs` (less the clock slack), or null when the venue does not answer. */
  async #readFills(sinceMs: number): Promise<VenueFillRow[] | null> {
    try {
      return await this.#o.http.info<VenueFillRow[]>({ type: 'userFillsByTime', user: this.#o.venue.omnibusAddress, startTime: Math.max(0, sinceMs - FILL_CLOCK_SLACK_MS) }, this.#o.infoTimeoutMs, 2);
    } catch (error) {
      if (error instanceof VenueUnavailableError) return null;
      throw error;
    }
  }

  /** Ledger decimals per token symbol (reference data, cached). */
  async #ledgerDecimals(): Promise<Map<string, number>> {
    const tokens = (await this.#o.deps.service.refdata.current()).tokens;
    return new Map([...tokens.values()].map((t) => [t.symbol, t.decimals]));
  }

  #venueFill(fill: VenueFillRow, baseWeiDecimals: number, decimals: Map<string, number>): VenueFill {
    const feeDecimals = decimals.get(fill.feeToken);
    return {
      tid: String(fill.tid),
      price: venueUnitsDown(fill.px, PRICE_DECIMALS),
      size: venueUnitsDown(fill.sz, baseWeiDecimals),
      time: fill.time,
      venueFee: feeDecimals === undefined ? 0n : venueUnitsUp(fill.fee, feeDecimals),
      venueFeeToken: fill.feeToken,
    };
  }

  /** Takes `id` for this caller unless someone is working on it (synchronous: no await between test and set). */
  #claim(id: string): boolean {
    if (this.#claimed.has(id)) return false;
    this.#claimed.add(id);
    return true;
  }

  #release(id: string): void {
    this.#claimed.delete(id);
  }

  /** One pass over everything outstanding. */
  async pass(): Promise<void> {
    const meta = await this.#o.venue.spotMeta(4, PASS_META_MAX_AGE_MS).catch(() => null);
    if (meta === null) return;
    if (!this.#tokensKnown) await this.#ensureTokens(meta);
    await this.#signOrders(meta);
    await this.#signCancels();
    await this.#signWithdrawals(meta);
    await this.#followLedger();
    await this.#sendUnsent(meta);
    await this.#reconcile(meta);
    await this.#followCancels(meta);
    await this.#bookFills(meta);

  }

  #tokensKnown = false;

  /** The venue's spot tokens exist in the ledger's token table (a new one gets its venue weiDecimals). */
  async #ensureTokens(meta: VenueSpotMeta): Promise<void> {
    const now = this.#now();
    const inPairs = new Set(meta.universe.flatMap((p) => p.tokens));
    const rows = meta.tokens.filter((t) => inPairs.has(t.index) && /^[A-Za-z0-9]{1,20}$/.test(t.name)).map((t) => ({ symbol: t.name, decimals: t.name === USDC ? USDC_LEDGER_DECIMALS : t.weiDecimals, address: null, updated_at: now }));
    if (rows.length > 0) await this.#db.insertInto('tokens').values(rows).onConflict((oc) => oc.column('symbol').doNothing()).execute();
    await this.#o.deps.service.refdata.reload();
    this.#tokensKnown = true;
  }

  get #db() {
    return this.#o.deps.service.db;
  }

  #now(): number {
    return this.#o.deps.service.clock.now();
  }

  async #signOrders(meta: VenueSpotMeta): Promise<void> {
    const orders = await this.#db
      .selectFrom('v0_orders')
      .selectAll()
      .where('status', '=', 'pending')
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('venue_actions').select('id').whereRef('venue_actions.owner_id', '=', 'v0_orders.id').where('venue_actions.kind', '=', 'order'))))
      .orderBy('created_at')
      .limit(BATCH)
      .execute();
    for (const order of orders) {
      if (!this.#claim(order.id)) continue;
      try {
        await this.#signOrder(order, meta);
      } finally {
        this.#release(order.id);
      }
    }
  }

  /** Signs and stores an order not yet sent (or finishes it: cancelled before sending, or a market gone). */
  async #signOrder(order: Selectable<V0OrdersTable>, meta: VenueSpotMeta, status: 'SIGNED' | 'SENT' = 'SIGNED'): Promise<StoredRequest | null> {
    if (order.cancel_requested) {
      await cancelUnsentOrder(this.#o.deps, order.id);
      return null;
    }
    const base = meta.tokens.find((t) => t.name === order.base_token);
    if (!base) {
      await failOrder(this.#o.deps, order.id, `the venue no longer lists ${order.base_token}`);
      return null;
    }
    const action = {
      type: 'order',
      orders: [{ a: order.asset, b: order.side === 'buy', p: venueDecimal(order.price, PRICE_DECIMALS), s: venueDecimal(order.amount, base.weiDecimals), r: false, t: { limit: { tif: order.tif } }, c: order.cloid }],
      grouping: 'na',
    };
    return this.#signAndStore(this.#o.agent, 'order', order.id, async (nonce) => ({ action, nonce, signature: await signL1Action({ wallet: this.#o.agent, action, nonce, isTestnet: this.#o.network === 'testnet' }) }), status);
  }

  async #signCancels(): Promise<void> {
    const orders = await this.#db
      .selectFrom('v0_orders')
      .select(['id', 'asset', 'oid'])
      .where('status', '=', 'open')
      .where('cancel_requested', '=', true)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('venue_actions').select('id').whereRef('venue_actions.owner_id', '=', 'v0_orders.id').where('venue_actions.kind', '=', 'cancel'))))
      .limit(BATCH)
      .execute();
    for (const order of orders) {
      if (order.oid === null) continue;
      const action = { type: 'cancel', cancels: [{ a: order.asset, o: order.oid }] };
      await this.#signAndStore(this.#o.agent, 'cancel', order.id, async (nonce) => ({ action, nonce, signature: await signL1Action({ wallet: this.#o.agent, action, nonce, isTestnet: this.#o.network === 'testnet' }) }));
    }
  }

  async #signWithdrawals(meta: VenueSpotMeta): Promise<void> {
    const rows = await this.#db
      .selectFrom('v0_withdrawals')
      .innerJoin('tokens', 'tokens.symbol', 'v0_withdrawals.token')
      .select(['v0_withdrawals.id', 'v0_withdrawals.token', 'v0_withdrawals.amount', 'v0_withdrawals.to_address', 'tokens.decimals'])
      .where('v0_withdrawals.state', '=', 'pending')
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('venue_actions').select('id').where(sql<boolean>`venue_actions.owner_id = v0_withdrawals.id::text`).where('venue_actions.kind', '=', 'spotSend'))))
      .limit(BATCH)
      .execute();
    const tokens = new Map(meta.tokens.map((t) => [t.name, t]));
    for (const w of rows) {
      const token = tokens.get(w.token);
      if (!token) {
        await failWithdrawal(this.#o.deps, w.id, `the venue does not list ${w.token}`);
        continue;
      }
      await this.#signAndStore(this.#o.omnibus, 'spotSend', w.id, async (nonce) => {
        const action = {
          type: 'spotSend',
          signatureChainId: '0x66eee' as const,
          hyperliquidChain: this.#o.network === 'testnet' ? ('Testnet' as const) : ('Mainnet' as const),
          // The venue signs the destination as a string in lower case (the SDK's Address form).
          destination: w.to_address.toLowerCase() as `0x${string}`,
          token: `${token.name}:${token.tokenId}`,
          amount: venueDecimal(w.amount, w.decimals),
          time: nonce,
        };
        return { action, nonce, signature: await signUserSignedAction({ wallet: this.#o.omnibus, action, types: SpotSendTypes }) };
      });
    }
  }

  /**
   * Takes the signer's next nonce (from a block reserved in one committed statement, so the
   * allocator's row is never held while signing), signs, and stores the request before anything
   * sends it. A nonce taken but never stored (a crash while signing, or an owner that already has
   * its action) is a harmless gap: the venue only needs them to increase. One action per owner
   * and kind (unique index), so a second signer for the same owner stores nothing and gets null.
   */
  async #signAndStore(signer: PrivateKeyAccount, kind: 'order' | 'cancel' | 'spotSend', ownerId: string, sign: (nonce: number) => Promise<Record<string, unknown>>, status: 'SIGNED' | 'SENT' = 'SIGNED'): Promise<StoredRequest | null> {
    const now = this.#now();
    const nonce = await this.#nextNonce(signer.address);
    const request = await sign(nonce);
    const id = this.#o.deps.service.ids.uuid();
    return (await storeSignedAction(this.#db, { id, signer: signer.address, nonce, kind, ownerId, request }, now, status)) ? { id, request } : null;
  }

  /** The signer's next nonce from its fresh block, reserving a new block (one statement, shared by concurrent callers) when none is left. */
  async #nextNonce(signer: string): Promise<number> {
    for (;;) {
      const now = this.#now();
      const block = this.#nonceBlocks.get(signer);
      if (block && block.next <= block.last && now - block.at < NONCE_BLOCK_TTL_MS) return block.next++;
      let reserving = this.#reservingNonces.get(signer);
      if (!reserving) {
        reserving = allocateNonces(this.#db, signer, now, NONCE_BLOCK)
          .then((first) => {
            this.#nonceBlocks.set(signer, { next: first, last: first + NONCE_BLOCK - 1, at: this.#now() });
          })
          .finally(() => this.#reservingNonces.delete(signer));
        this.#reservingNonces.set(signer, reserving);
      }
      await reserving;
    }
  }

  /** Sends every stored action that has no answer yet (first sends and resends alike: same bytes). */
  async #sendUnsent(meta: VenueSpotMeta): Promise<void> {
    const reconcileBefore = this.#now() - this.#o.reconcileAfterMs;
    const actions = await this.#db
      .selectFrom('venue_actions')
      .select(['id', 'kind', 'owner_id', 'status', 'updated_at', 'send_attempts'])
      // A spotSend without an answer is resent only while its withdrawal is pending: once the
      // ledger has shown it (completed), a resend would only meet its own nonce.
      .where((eb) =>
        eb.or([
          eb('status', '=', 'SIGNED'),
          eb.and([
            eb('status', '=', 'SENT'),
            eb('kind', '=', 'spotSend'),
            eb('updated_at', '<', reconcileBefore),
            eb.exists(eb.selectFrom('v0_withdrawals').select('v0_withdrawals.id').where(sql<boolean>`v0_withdrawals.id::text = venue_actions.owner_id`).where('v0_withdrawals.state', '=', 'pending')),
          ]),
        ]),
      )
      .orderBy('created_at')
      .limit(BATCH)
      .execute();
    // Actions are independent (each its own nonce and owner), so they go out together: one slow
    // answer does not hold up the rest, and a burst of orders costs one round trip, not one each.
    const results = await Promise.allSettled(actions.filter((action) => this.#claim(action.owner_id)).map(async (action) => {
      try {
        await this.#send(action, meta);
      } finally {
        this.#release(action.owner_id);
      }
    }));
    for (const result of results) if (result.status === 'rejected') this.#o.logger.warn({ err: result.reason }, 'venue action not applied; retried next pass');
  }

  /** Sends one stored action and applies the answer. Returns false when none came (kept for a resend). */
  async #send(action: { id: string; kind: string; owner_id: string; send_attempts: number }, meta: VenueSpotMeta): Promise<boolean> {
    const outcome = await sendStoredAction(this.#db, this.#o.http, action.id, this.#o.exchangeTimeoutMs, () => this.#now());
    if (!outcome.answered) {
      this.#o.logger.warn({ action: action.id, error: outcome.error }, 'venue action unanswered; kept for a resend');
      return false;
    }
    await this.#applyReply(action.kind, action.owner_id, outcome.reply, meta, action.send_attempts + 1);
    return true;
  }

  async #applyReply(kind: string, ownerId: string, reply: VenueExchangeReply, meta: VenueSpotMeta, attempt = 1): Promise<void> {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the venue's per-order status is a union of loosely typed shapes
    const status = firstStatus(reply) as Record<string, any> | string;
    if (kind === 'spotSend') {
      if (reply.status !== 'err') return;
      // A resend refused for its nonce may mean the first send was applied: the ledger decides.
      if (attempt > 1 && /nonce/i.test(String(reply.response))) {
        this.#o.logger.warn({ withdrawal: ownerId, reply: reply.response }, 'resent spotSend refused for its nonce; waiting for the ledger');
        return;
      }
      await failWithdrawal(this.#o.deps, ownerId, String(reply.response));
      return;
    }
    if (kind === 'cancel') {
      await this.#finishFromStatus(ownerId, meta);
      return;
    }
    if (typeof status === 'object' && status !== null) {
      if ('resting' in status) await markOrderResting(this.#o.deps, ownerId, Number(status.resting.oid));
      // Its fills are booked by the pass's fill step; the order ends once they all are.
      else if ('filled' in status) await this.#finishFilled(ownerId, String(status.filled.totalSz), Number(status.filled.oid), meta);
      else if ('error' in status) {
        if (NO_MATCH.test(String(status.error))) await finishOrder(this.#o.deps, ownerId, 0n, null);
        else await failOrder(this.#o.deps, ownerId, String(status.error));
      }
    }
  }

  /**
   * Finishes an order from the venue's own record of it (after a cancel, or when unclear).
   * Returns what the venue said: the order ended (and is finished here), is still open, or
   * nothing usable (the read failed, or the venue's API server has not seen the order yet).
   */
  async #finishFromStatus(orderId: string, meta: VenueSpotMeta): Promise<'ended' | 'open' | 'unknown'> {
    const order = await this.#db.selectFrom('v0_orders').select(['cloid', 'base_token', 'status']).where('id', '=', orderId).executeTakeFirst();
    if (!order) return 'unknown';
    const reply = await this.#o.http.info<OrderStatusReply>({ type: 'orderStatus', user: this.#o.venue.omnibusAddress, oid: order.cloid }, this.#o.infoTimeoutMs, 2).catch(() => null);
    if (!reply?.order) return 'unknown';
    const wei = meta.tokens.find((t) => t.name === order.base_token)?.weiDecimals ?? 0;
    const venueOrder = reply.order.order;
    if (reply.order.status === 'open') {
      await markOrderResting(this.#o.deps, orderId, venueOrder.oid);
      return 'open';
    }
    const filled = venueUnitsDown(venueOrder.origSz, wei) - venueUnitsDown(venueOrder.sz, wei);
    await finishOrder(this.#o.deps, orderId, filled, venueOrder.oid);
    return 'ended';
  }

  /**
   * Open orders whose cancel went out but which are still open here. The look-up right after the
   * cancel's answer can miss the order (the read failed, or the venue's API servers lag behind
   * its state: `unknownOid`) or find it not yet cancelled, and an unanswered cancel is not resent
   * by the sends (a cancel may not be needed any more). So once the cancel's last write is
   * `reconcileAfterMs` old the venue is asked again, and while it still shows the order open an
   * unanswered cancel is resent (same bytes: if the first arrived, the venue refuses its nonce).
   * Each order's look-ups back off from `reconcileAfterMs` to a minute apart, so one the venue
   * keeps open (a cancel it refused) costs one read a minute, not one a pass.
   */
  async #followCancels(meta: VenueSpotMeta): Promise<void> {
    const now = this.#now();
    const rows = await this.#db
      .selectFrom('v0_orders')
      .innerJoin('venue_actions', (join) => join.onRef('venue_actions.owner_id', '=', 'v0_orders.id').on('venue_actions.kind', '=', 'cancel'))
      .select(['v0_orders.id as order_id', 'venue_actions.id as action_id', 'venue_actions.status as action_status', 'venue_actions.send_attempts'])
      .where('v0_orders.status', '=', 'open')
      .where('v0_orders.cancel_requested', '=', true)
      .where('venue_actions.status', '!=', 'SIGNED')
      .where('venue_actions.updated_at', '<', now - this.#o.reconcileAfterMs)
      .limit(BATCH)
      .execute();
    const following = new Set(rows.map((row) => row.order_id));
    for (const id of this.#cancelLookups.keys()) if (!following.has(id)) this.#cancelLookups.delete(id);
    for (const row of rows) {
      const lookup = this.#cancelLookups.get(row.order_id);
      if (lookup && lookup.dueAt > now) continue;
      if (!this.#claim(row.order_id)) continue;
      try {
        const venue = await this.#finishFromStatus(row.order_id, meta);
        if (venue === 'ended') {
          this.#cancelLookups.delete(row.order_id);
          continue;
        }
        const pauseMs = Math.min(CANCEL_LOOKUP_MAX_MS, (lookup?.pauseMs ?? this.#o.reconcileAfterMs / 2) * 2);
        this.#cancelLookups.set(row.order_id, { dueAt: this.#now() + pauseMs, pauseMs });
        if (venue === 'open' && row.action_status === 'SENT') await this.#send({ id: row.action_id, kind: 'cancel', owner_id: row.order_id, send_attempts: row.send_attempts }, meta);
      } finally {
        this.#release(row.order_id);
      }
    }
  }

  /** An IOC the venue answered `filled`: its total is recorded; the fill step books the fills. */
  async #finishFilled(orderId: string, totalSz: string, oid: number, meta: VenueSpotMeta): Promise<void> {
    const order = await this.#db.selectFrom('v0_orders').select('base_token').where('id', '=', orderId).executeTakeFirstOrThrow();
    const wei = meta.tokens.find((t) => t.name === order.base_token)?.weiDecimals ?? 0;
    await finishOrder(this.#o.deps, orderId, venueUnitsDown(totalSz, wei), oid);
  }

  /**
   * Books the omnibus's fills of live orders, each trade id once. Only the window that can hold
   * them is read (`userFillsByTime` from the oldest live order, or from the last fill seen once a
   * read has covered that), and trade ids already booked are skipped with one query, so a pass
   * costs the same whatever the account's history. With `onlyOrderId`, that order's fills alone,
   * read from its creation (the shared cursor is left alone).
   */
  async #bookFills(meta: VenueSpotMeta, onlyOrderId?: string): Promise<void> {
    // An order recorded after this moment is not in `live`: the cursor never passes it.
    const liveAt = this.#now();
    let liveQuery = this.#db.selectFrom('v0_orders').select(['id', 'cloid', 'oid', 'base_token', 'created_at', 'status']).where('status', 'in', ['pending', 'open']);
    if (onlyOrderId !== undefined) liveQuery = liveQuery.where('id', '=', onlyOrderId);
    const catchUpNone = this.#catchUpRead();
    const live = await liveQuery.orderBy('created_at').limit(1000).execute();
    if (live.length === 0) {
      // No live order: no fill missed while the stream was down can matter.
      if (onlyOrderId === undefined && catchUpNone()) this.#caughtUp.fills = true;
      return;
    }
    // The pass's read of resting orders' fills backs off while none come (a wake-up resets it);
    // an order waiting on its fills (pending, answered `filled`) is read for at every pass.
    const waitingOnFills = live.some((o) => o.oid !== null && o.status === 'pending');
    // Pushed, the fills are in memory: nothing to read (an order still waiting on its fills after
    // its own wait is read for, in case a push was lost).
    const pushing = this.#pushing('fills') && !waitingOnFills;
    if (pushing && onlyOrderId !== undefined) return;
    if (!pushing && onlyOrderId === undefined && !waitingOnFills && !this.#fillReads.due(liveAt)) return;
    const from = (onlyOrderId !== undefined ? live[0]!.created_at : Math.max(live[0]!.created_at, this.#fillsSeenUpToMs)) - FILL_CLOCK_SLACK_MS;
    let fills: VenueFillRow[];
    if (pushing) fills = this.#pushedFills.since(from);
    else {
      const catchUp = this.#catchUpRead();
      try {
        fills = await this.#o.http.info<VenueFillRow[]>({ type: 'userFillsByTime', user: this.#o.venue.omnibusAddress, startTime: Math.max(0, from) }, this.#o.infoTimeoutMs, onlyOrderId === undefined ? 4 : 2);
      } catch (error) {
        if (error instanceof VenueUnavailableError) return;
        throw error;
      }
      if (onlyOrderId === undefined && catchUp()) this.#caughtUp.fills = true;
    }
    const byCloid = new Map(live.map((o) => [o.cloid, o]));
    const byOid = new Map(live.filter((o) => o.oid !== null).map((o) => [o.oid!, o]));
    const candidates = fills.filter((fill) => (fill.cloid ? byCloid.has(fill.cloid.toLowerCase()) : false) || byOid.has(fill.oid));
    const booked = candidates.length === 0 ? new Set<string>() : new Set((await this.#db.selectFrom('v0_fills').select('tid').where('tid', 'in', candidates.map((fill) => String(fill.tid))).execute()).map((r) => r.tid));
    const decimals = await this.#ledgerDecimals();
    const tokens = new Map(meta.tokens.map((t) => [t.name, t]));
    const perOrder = new Map<string, { weiDecimals: number; fills: VenueFill[] }>();
    for (const fill of fills) {
      const order = (fill.cloid ? byCloid.get(fill.cloid.toLowerCase()) : undefined) ?? byOid.get(fill.oid);
      // An order being placed right now books its own fills.
      if (order === undefined || booked.has(String(fill.tid)) || (onlyOrderId === undefined && this.#claimed.has(order.id))) continue;
      const base = tokens.get(order.base_token);
      if (!base) continue;
      const entry = perOrder.get(order.id) ?? { weiDecimals: base.weiDecimals, fills: [] };
      entry.fills.push(this.#venueFill(fill, base.weiDecimals, decimals));
      perOrder.set(order.id, entry);
    }
    // One transaction per order with new fills; the order's row says which are booked already.
    for (const [orderId, { weiDecimals, fills: own }] of perOrder) await bookFills(this.#o.deps, orderId, own, { baseWeiDecimals: weiDecimals });
    if (onlyOrderId === undefined) {
      for (const fill of fills) this.#fillsSeenUpToMs = Math.max(this.#fillsSeenUpToMs, Math.min(fill.time, liveAt));
      this.#fillReads.read(this.#now(), perOrder.size > 0);
    }
  }

  /**
   * Deposits to the omnibus and the omnibus's own transfers out, from its ledger updates: read
   * from the cursor kept in the store (less an overlap; each update is applied once by its hash),
   * page after page while the venue's 500-row cap is reached. Idle (nothing new, no withdrawal
   * waiting on the ledger) the reads back off to `ledgerIdleMaxMs` apart; a wake-up (a user's
   * order or withdrawal) or a new update brings them back to every pass.
   */
  async #followLedger(): Promise<void> {
    const now = this.#now();
    let reconciling = false;
    if (this.#pushing('ledger')) {
      await this.#applyPushedLedger();
      if (now - this.#ledgerReconciledAt < (this.#o.ledgerReconcileMs ?? DEFAULT_LEDGER_RECONCILE_MS)) return;
      // Due whether or not this read succeeds: a venue that refuses it is not asked every pass.
      this.#ledgerReconciledAt = now;
      reconciling = true;
    }
    const catchUp = this.#catchUpRead();
    const waiting = reconciling ? undefined : await this.#db.selectFrom('v0_withdrawals').select('id').where('state', '=', 'pending').limit(1).executeTakeFirst();
    if (!reconciling && waiting === undefined && !this.#ledgerReads.due(now)) return;
    this.#ledgerCursorMs ??= (await readVenueCursor(this.#db, LEDGER_CURSOR)) ?? 0;
    let from = Math.max(0, this.#ledgerCursorMs - LEDGER_OVERLAP_MS);
    let fresh = false;
    // Every page up to now was read (not cut short by the venue or by the pages' bound).
    let readAll = false;
    for (let page = 0; page < MAX_LEDGER_PAGES; page++) {
      let updates: LedgerUpdate[];
      try {
        updates = await this.#o.http.info<LedgerUpdate[]>({ type: 'userNonFundingLedgerUpdates', user: this.#o.venue.omnibusAddress, startTime: from }, this.#o.infoTimeoutMs, 4);
      } catch (error) {
        if (error instanceof VenueUnavailableError) break;
        throw error;
      }
      const before = this.#ledgerCursorMs;
      const applied = await this.#applyLedger(updates);
      if (this.#ledgerCursorMs > before) fresh = true;
      if (reconciling && applied > 0) this.#o.logger.warn({ applied }, 'venue ledger updates not (yet) applied from the stream, found by the reconciliation read');
      if (updates.length < LEDGER_PAGE_CAP) {
        readAll = true;
        break;
      }
      // A full page: the next starts at its last update's time (the updates of that millisecond
      // are read again and skipped by hash), or just after it when the whole page is one millisecond.
      const last = Math.max(...updates.map((u) => u.time));
      from = last > from ? last : from + 1;
    }
    if (this.#ledgerCursorMs > 0) await advanceVenueCursor(this.#db, LEDGER_CURSOR, this.#ledgerCursorMs, this.#now());
    this.#ledgerReads.read(this.#now(), fresh || waiting !== undefined);
    if (readAll && catchUp()) {
      this.#caughtUp.ledger = true;
      this.#ledgerReconciledAt = now;
    }
  }

  /** The ledger updates pushed since the last pass (those before the cursor's overlap were seen). */
  async #applyPushedLedger(): Promise<void> {
    const pushed = this.#pushedLedger.splice(0);
    if (pushed.length === 0) return;
    try {
      this.#ledgerCursorMs ??= (await readVenueCursor(this.#db, LEDGER_CURSOR)) ?? 0;
      const from = this.#ledgerCursorMs - LEDGER_OVERLAP_MS;
      await this.#applyLedger(pushed.filter((update) => update.time >= from));
    } catch (error) {
      // Not applied (each update is applied once by its hash, so a retry is safe): the next pass
      // tries them again rather than leave them to the next reconnection's catch-up.
      this.#pushedLedger.unshift(...pushed);
      throw error;
    }
    if (this.#ledgerCursorMs > 0) await advanceVenueCursor(this.#db, LEDGER_CURSOR, this.#ledgerCursorMs, this.#now());
  }

  /**
   * Called as a REST read starts; the function it returns says, once the read succeeded, whether
   * that read caught up for the stream: it was live throughout, so every later change is pushed.
   */
  #catchUpRead(): () => boolean {
    const generation = this.#liveGeneration;
    const live = this.#o.stream?.live === true;
    return () => live && this.#o.stream?.live === true && generation === this.#liveGeneration;
  }

  /** Applies each update not applied before (by its hash); returns how many it applied now. */
  async #applyLedger(updates: LedgerUpdate[]): Promise<number> {
    const decimals = new Map((await this.#db.selectFrom('tokens').select(['symbol', 'decimals']).execute()).map((t) => [t.symbol, t.decimals]));
    const omnibus = this.#o.venue.omnibusAddress.toLowerCase();
    let latest = this.#ledgerCursorMs ?? 0;
    let applied = 0;
    for (const update of updates) {
      latest = Math.max(latest, update.time);
      const transfer = omnibusTransferOf(update, omnibus);
      if (transfer === null) continue;
      const tokenDecimals = decimals.get(transfer.token);
      if (tokenDecimals === undefined) {
        this.#o.logger.warn({ hash: update.hash, token: transfer.token }, 'venue transfer in a token the service does not hold; left to the operator');
        continue;
      }
      if (transfer.kind === 'deposit') {
        if (await creditVenueDeposit(this.#o.deps, { hash: transfer.hash, from: transfer.from, token: transfer.token, amount: venueUnitsDown(transfer.amount, tokenDecimals) })) applied++;
      } else {
        const fee = transfer.fee !== null ? venueUnitsUp(transfer.fee, tokenDecimals) : 0n;
        if (await completeWithdrawal(this.#o.deps, { destination: getAddress(transfer.destination), token: transfer.token, amount: venueUnitsDown(transfer.amount, tokenDecimals), hash: transfer.hash, venueFee: fee, venueFeeToken: transfer.token })) applied++;
      }
    }
    this.#ledgerCursorMs = latest;
    return applied;
  }

  /** Orders sent without an answer: looked up by client order id; never seen by the venue means resend the same bytes. */
  async #reconcile(meta: VenueSpotMeta): Promise<void> {
    const before = this.#now() - this.#o.reconcileAfterMs;
    const unclear = await this.#db
      .selectFrom('venue_actions')
      .innerJoin('v0_orders', 'v0_orders.id', 'venue_actions.owner_id')
      .select(['venue_actions.id as action_id', 'v0_orders.id as order_id', 'v0_orders.cloid'])
      .where('venue_actions.kind', '=', 'order')
      .where('venue_actions.status', '=', 'SENT')
      .where('venue_actions.updated_at', '<', before)
      .where('v0_orders.status', '=', 'pending')
      .limit(BATCH)
      .execute();
    for (const row of unclear) {
      // An order still being placed (its send not yet answered or timed out) is not unclear yet.
      if (!this.#claim(row.order_id)) continue;
      try {
        await this.#reconcileOrder(row, meta);
      } finally {
        this.#release(row.order_id);
      }
    }
  }

  async #reconcileOrder(row: { action_id: string; order_id: string; cloid: string }, meta: VenueSpotMeta): Promise<void> {
    const reply = await this.#o.http.info<OrderStatusReply>({ type: 'orderStatus', user: this.#o.venue.omnibusAddress, oid: row.cloid }, this.#o.infoTimeoutMs, 2).catch(() => null);
    if (reply === null) return;
    if (reply.status === 'unknownOid' || !reply.order) {
      const outcome = await sendStoredAction(this.#db, this.#o.http, row.action_id, this.#o.exchangeTimeoutMs, () => this.#now());
      if (outcome.answered) await this.#applyReply('order', row.order_id, outcome.reply, meta);
      return;
    }
    await recordActionKnown(this.#db, row.action_id, this.#now());
    await this.#finishFromStatus(row.order_id, meta);
  }
}

/**
 * A read that backs off while it finds nothing: due at every pass after something new, then
 * after a pause doubling from the poll interval up to `maxMs`.
 */
class IdleReads {
  readonly #minMs: number;
  readonly #maxMs: number;
  #dueAt = 0;
  #pauseMs = 0;

  constructor(minMs: number, maxMs: number) {
    this.#minMs = minMs;
    this.#maxMs = maxMs;
  }

  due(now: number): boolean {
    return now >= this.#dueAt;
  }

  /** A read was made at `now`; `fresh`: it found something (or something waits on it). */
  read(now: number, fresh: boolean): void {
    this.#pauseMs = fresh ? 0 : Math.min(this.#maxMs, Math.max(this.#minMs, this.#pauseMs * 2));
    this.#dueAt = now + this.#pauseMs;
  }

  reset(): void {
    this.#dueAt = 0;
    this.#pauseMs = 0;
  }
}
