/**
 * The action generator: each step draws one action or fault from the seed and performs it
 * through the real API (or on the stack), recording it in the action log and, when the API
 * acknowledged it, in the model. Refusals (4xx with a code) change nothing in the model; a 500
 * is a finding. Concurrent duplicates and reordered re-quotes are sent as real parallel requests.
 */
import { formatAmount } from '../../src/domain/money/index.ts';
import type { MakerQuote, Quote } from '../../src/client/types.ts';
import { Prng } from './prng.ts';
import type { SimStack } from './stack.ts';
import type { Findings } from './findings.ts';
import { attempt, type Actor } from './actors.ts';
import { INSTRUMENTS, PERP_TERMS, TOKENS, units, type Model, type QuoteModel, type RfqModel, type SweepModel, type Token } from './model.ts';
import { onPerpGrid, perpMakerLegs, signMakerOrders, type PerpAsset } from '../../src/client/perp-order.ts';
import { parseAmount } from '../../src/domain/money/index.ts';
import { ApiError } from '../../src/client/http.ts';
import { SIM_CONFIRMATIONS } from './chain.ts';
import { rawOf, xchangeBundle } from './wallets.ts';
import type { PriceFeeds } from './prices.ts';
import type { Watchdog } from './watchdog.ts';

export interface LoggedAction { step: number; actor: string; action: string; args: unknown; outcome: string }

/** How far the service clock may sit from the clients' (the spec's skew is 30 s). */
const CLOCK_OFFSET_RANGE: [number, number] = [-10_000, 20_000];

const WEIGHTS = {
  createRfq: 16,
  quote: 28,
  requote: 8,
  reorderedRequotes: 3,
  makerCancel: 5,
  takerCancel: 4,
  accept: 14,
  duplicateAccept: 3,
  deposit: 4,
  withdraw: 3,
  operatorDecision: 4,
  wait: 8,
  // A maker streams a fresh indicative ladder (prices.ts checks what the takers' sessions show).
  ladderTick: 6,
  clockJump: 3,
  restartNode: 2,
  crashSecondNode: 2,
  // On a chain only (weight 0 without one): makers relay the permits they won, a relay that
  // reverts (its permit tampered with), a relay reorganised away below the confirmation depth,
  // and an outage of the nodes' RPC (starts on one step, ends on a later one).
  relay: 0,
  badRelay: 0,
  reorgRelay: 0,
  rpcOutage: 0,
  // On a chain: a maker holds a win and settles it only once the chain is past its deadline (a
  // late relay or delivery), and a custody transaction stuck under a base-fee spike.
  lateSettle: 0,
  stuckCustody: 0,
  // With a venue only: the simulator's fault rules and nonce burning.
  venueFault: 0,
};
export type ActionKind = keyof typeof WEIGHTS;
const CHAIN_WEIGHTS: Partial<Record<ActionKind, number>> = { createRfq: 30, quote: 34, relay: 18, badRelay: 2, reorgRelay: 2, rpcOutage: 2, accept: 18, deposit: 2, lateSettle: 2, stuckCustody: 2 };
/** A base fee far above what the custody broadcaster's transaction offered (anvil's is about 1-2 gwei). */
const SPIKED_BASE_FEE_WEI = 200_000_000_000n;
/** Of the makers' spot quotes on a chain, the share sent in xchange mode (with a bundle). */
const XCHANGE_SHARE = 0.35;
/** A maker's win it settles late: the quote as it saw it SELECTED. */
interface HeldWin { maker: Actor; quote: MakerQuote }

/** Of the spot RFQs a run with sweeps creates, the share with `fill: "SWEEP"`. */
const SWEEP_SHARE = 0.45;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function scaled(value: number, decimals: number): string {
  return value.toFixed(decimals).replace(/\.?0+$/, '') || '0';
}

/** `percent` % of `baseQty`, down to the instrument's size grid; null when that is nothing. */
function share(instrument: { base: Token; qtyDecimals: number }, baseQty: string, percent: number): string | null {
  const grid = 10n ** BigInt(TOKENS[instrument.base] - instrument.qtyDecimals);
  const part = ((units(instrument.base, baseQty) * BigInt(percent)) / 100n / grid) * grid;
  return part === 0n ? null : formatAmount(part, TOKENS[instrument.base]);
}

export class Driver {
  readonly log: LoggedAction[] = [];
  readonly counts: Record<string, number> = {};
  readonly rng: Prng;
  /**
   * Every sweep choice (which RFQs sweep, their `minFillQty`, the parts makers quote, how takers
   * accept, what races the accept) comes from its own stream, so a run without sweeps draws from
   * `rng` exactly what it drew before sweeps existed.
   */
  readonly sweepRng: Prng;
  readonly #sweeps: boolean;
  /** Whether the planned crash while a sweep had legs still to settle has happened. */
  #sweepCrashDone = false;
  /** SWEEP RFQs the taker considered sweeping once two makers had quoted (`#sweepReady`). */
  readonly #sweepTried = new Set<string>();
  readonly #stack: SimStack;
  readonly #model: Model;
  readonly #findings: Findings;
  readonly #actors: Actor[];
  readonly #verbose: boolean;
  /** Faults every run meets at least once, at steps drawn from the seed (more come at random). */
  readonly #plan = new Map<number, ActionKind>();
  readonly #weights: Record<ActionKind, number>;
  readonly #instruments: typeof INSTRUMENTS;
  /** The step on which an RPC outage ends (it lasts one to three steps). */
  #rpcBackAt = 0;
  /** Wins makers hold back to settle once the chain is past their deadline (by quote id). */
  readonly #held = new Map<string, HeldWin>();
  /** Wins still to hold back: a late settlement asked for while the maker had none (the next maker's next win). */
  #holdNext = 0;
  /** Withdrawals the driver got stuck (stuckCustody), to report how each ended. */
  readonly #stuck = new Set<string>();
  step = 0;
  /** The makers' price feeds and the takers' price frames, when the run streams ladders. */
  prices: PriceFeeds | null = null;
  /** Told which step and action the run is in (a run that stalls says where). */
  watchdog: Watchdog | null = null;

  constructor(seed: number, stack: SimStack, model: Model, findings: Findings, actors: Actor[], verbose: boolean, steps = 0, sweeps = false) {
    this.rng = new Prng(seed ^ 0x5eed);
    this.sweepRng = new Prng(seed ^ 0x5ee9_f111);
    this.#sweeps = sweeps;
    this.#weights = { ...WEIGHTS, ...(stack.chain ? CHAIN_WEIGHTS : {}), ...(stack.venue ? { venueFault: 4 } : {}) };
    this.#instruments = stack.venue ? [...INSTRUMENTS, PERP_TERMS] : INSTRUMENTS;
    const planned: ActionKind[] = ['restartNode', 'crashSecondNode', 'clockJump', 'duplicateAccept', 'reorderedRequotes'];
    if (stack.chain) planned.push('badRelay', 'reorgRelay', 'rpcOutage', 'lateSettle', 'stuckCustody');
    if (stack.venue) planned.push('venueFault');
    for (const kind of planned) {
      if (steps < 10) break;
      let at = this.rng.int(3, steps - 2);
      while (this.#plan.has(at)) at = (at % (steps - 2)) + 1;
      this.#plan.set(at, kind);
    }
    this.#stack = stack;
    this.#model = model;
    this.#findings = findings;
    this.#actors = actors;
    this.#verbose = verbose;
  }

  /** `acked`: whether the API acknowledged the action (null for faults and skipped actions). */
  #record(actor: string, action: string, args: unknown, outcome: string, acked: boolean | null = null): void {
    const entry = { step: this.step, actor, action, args, outcome };
    this.log.push(entry);
    const kind = outcome.startsWith('skipped') ? `${action} (skipped)` : acked === null ? action : `${action} (${acked ? 'acknowledged' : 'refused'})`;
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
    if (this.#verbose) console.log(`${JSON.stringify(entry)} ${this.watchdog?.elapsed ?? ''}`);
  }

  #up(role: 'taker' | 'maker'): Actor[] {
    return this.#actors.filter((a) => a.role === role && this.#stack.isRunning(a.node));
  }

  async fund(actor: Actor, token: Token, amount: string, memo: string): Promise<void> {
    const outcome = await attempt(() => this.#stack.admin.adjustBalance({ address: actor.address, token, amount, memo }), this.#findings, `adjust ${actor.name}`);
    if (outcome.ok) this.#model.credit(actor.name, token, units(token, amount));
    this.#record(actor.name, 'deposit', { token, amount }, outcome.ok ? 'credited' : outcome.code, outcome.ok);
  }

  async next(): Promise<void> {
    this.step++;
    this.watchdog?.enter(`step ${this.step}: the RPC back`);
    if (this.#stack.chain?.rpcDown && this.step >= this.#rpcBackAt) await this.#rpcOutage();
    const sweepCrash = this.#sweepCrashDue();
    const sweepReady = sweepCrash || this.#plan.has(this.step) ? null : this.#sweepReady();
    const kind = sweepCrash ? 'sweepCrash' : sweepReady ? 'sweepAccept' : this.#plan.get(this.step) ?? this.rng.weighted(this.#weights);
    this.watchdog?.enter(`step ${this.step}: ${kind}`);
    if (sweepCrash) await this.#sweepCrash(sweepCrash);
    else if (sweepReady) await this.#accept(this.sweepRng.chance(0.2), sweepReady);
    else await this.perform(kind as ActionKind);
    if (this.#sweeps) {
      this.watchdog?.enter(`step ${this.step}: the makers quote parts of sweeps`);
      await this.#makersQuoteSweeps();
    }
    this.watchdog?.enter(`step ${this.step}: the makers settle their wins`);
    if (this.#stack.chain && kind !== 'relay' && kind !== 'badRelay' && kind !== 'reorgRelay') await this.#makersRelay();
  }

  async perform(kind: ActionKind): Promise<void> {
    switch (kind) {
      case 'createRfq': return this.#createRfq();
      case 'quote': return this.#quote();
      case 'requote': return this.#requote(false);
      case 'reorderedRequotes': return this.#requote(true);
      case 'makerCancel': return this.#makerCancel();
      case 'takerCancel': return this.#takerCancel();
      case 'accept': return this.#accept(false);
      case 'duplicateAccept': return this.#accept(true);
      case 'deposit': return this.#deposit();
      case 'withdraw': return this.#withdraw();
      case 'operatorDecision': return this.#operatorDecision();
      case 'wait': return this.#wait();
      case 'ladderTick': return this.#ladderTick();
      case 'clockJump': return this.#clockJump();
      case 'restartNode': return this.#restartNode();
      case 'crashSecondNode': return this.#crashSecondNode();
      case 'relay': return this.#relay('relay');
      case 'badRelay': return this.#relay('badRelay');
      case 'reorgRelay': return this.#relay('reorgRelay');
      case 'rpcOutage': return this.#rpcOutage();
      case 'lateSettle': return this.#holdWin();
      case 'stuckCustody': return this.#stuckCustody();
      case 'venueFault': return this.#venueFault();
    }
  }

  async #createRfq(): Promise<void> {
    const takers = this.#up('taker');
    if (takers.length === 0) return this.#record('-', 'createRfq', {}, 'skipped: no taker up');
    const taker = this.rng.pick(takers);
    const instrument = this.rng.pick(this.#instruments);
    const side = this.rng.chance(0.5) ? 'BUY' : 'SELL';
    const qty = instrument.qtyRange[0] + this.rng.next() * (instrument.qtyRange[1] - instrument.qtyRange[0]);
    const baseQty = scaled(qty, instrument.qtyDecimals);
    // A perp needs the taker's signed order to be accepted: never autoAccept.
    const autoAccept = !instrument.perp && this.rng.chance(0.4);
    const notional = qty * instrument.refPrice;
    // BUY: the most the taker pays, fee included; SELL: the least it accepts. A perp's makers
    // quote within a basis point of the venue's mid: its limit is a few basis points from it.
    const bound = instrument.perp
      ? notional * (side === 'BUY' ? 1.0005 + this.rng.next() * 0.005 : 0.9995 - this.rng.next() * 0.005)
      : side === 'BUY' ? notional * (1 + instrument.feeTenthBp / 100_000) * (0.97 + this.rng.next() * 0.08) : notional * (0.95 + this.rng.next() * 0.07);
    const quoteLimit = autoAccept || instrument.perp || this.rng.chance(0.5) ? scaled(bound, 2) : null;
    // Long enough for makers to find it a few steps later (a step takes seconds on a loaded machine).
    const windowMs = this.rng.int(6000, 25_000);
    const idempotencyKey = this.rng.uuid();
    const sweep = this.#sweeps && this.sweepRng.chance(SWEEP_SHARE);
    // Half the sweeps take any fill of at least a share of the size; the others only the whole size.
    const minFillQty = sweep && this.sweepRng.chance(0.5) ? share(instrument, baseQty, this.sweepRng.int(30, 90)) : null;
    const sweepFields = sweep ? { fill: 'SWEEP' as const, ...(minFillQty ? { minFillQty } : {}) } : {};
    const body = { instrumentId: instrument.id, side, baseQty, autoAccept, windowMs, idempotencyKey, ...(quoteLimit ? { quoteLimit } : {}), ...sweepFields } as const;
    // A client retry: the same request (same idempotency key) sent twice at once.
    const duplicate = this.rng.chance(0.15);
    const sends = duplicate ? [1, 2] : [1];
    const outcomes = await Promise.all(sends.map(() => attempt(() => taker.client.createRfq(body), this.#findings, `createRfq ${taker.name}`)));
    const ids = new Set(outcomes.flatMap((o) => (o.ok ? [o.value.rfqId] : [])));
    if (ids.size > 1) this.#findings.add('idempotency', `one idempotency key gave two RFQs: ${[...ids].join(', ')}`);
    const rfqId = [...ids][0];
    if (rfqId) {
      const sweepModel: SweepModel | null = sweep ? { minFillQty, acceptedLegs: null, legs: new Map() } : null;
      const rfq: RfqModel = { id: rfqId, taker: taker.name, instrument, side, baseQty, autoAccept, quoteLimit, idempotencyKey, cancelAcked: false, acceptedQuote: null, status: 'PENDING', quotes: new Map(), settled: null, settlementDeadline: null, sweep: sweepModel };
      this.#model.rfqs.set(rfqId, rfq);
    }
    this.#record(taker.name, `${duplicate ? 'createRfq(duplicate)' : 'createRfq'}${sweep ? '(sweep)' : ''}`, body, outcomes.map((o) => (o.ok ? o.value.rfqId : o.code)).join(' | '), outcomes.some((o) => o.ok));
  }

  /** A maker prices an RFQ it finds in its open listing, around the instrument's level. */
  async #quote(): Promise<void> {
    const makers = this.#up('maker');
    if (makers.length === 0) return this.#record('-', 'quote', {}, 'skipped: no maker up');
    const maker = this.rng.pick(makers);
    const listing = await attempt(() => maker.client.openRfqs({ limit: 100 }), this.#findings, `openRfqs ${maker.name}`);
    if (!listing.ok) return this.#record(maker.name, 'quote', {}, `listing refused: ${listing.code}`);
    const known = listing.value.items.filter((r) => this.#model.rfqs.has(r.id));
    if (known.length === 0) return this.#record(maker.name, 'quote', {}, 'skipped: nothing open');
    let open = this.rng.pick(known);
    // With sweeps, a maker mostly takes a part of a sweep it has not quoted yet, if one is open.
    const sweepsToQuote = known.filter((r) => this.#model.rfqs.get(r.id)!.sweep && ![...this.#model.rfqs.get(r.id)!.quotes.values()].some((q) => q.maker === maker.name));
    if (sweepsToQuote.length > 0 && this.sweepRng.chance(0.6)) open = this.sweepRng.pick(sweepsToQuote);
    const rfq = this.#model.rfqs.get(open.id)!;
    rfq.settlementDeadline ??= open.settlementDeadline;
    const existing = [...rfq.quotes.values()].find((q) => q.maker === maker.name);
    await this.#submit(maker, rfq, rfq.sweep ? (existing ? this.#baseOf(rfq, existing) : this.#part(rfq)) : open.baseQty, existing ?? null, false);
  }

  /**
   * Makers quote parts of the sweeps they see, as a maker's bot would: after each step, each maker
   * up quotes a part of one open SWEEP RFQ it has not quoted yet, a third of the time (all drawn
   * from the sweep stream).
   */
  async #makersQuoteSweeps(): Promise<void> {
    for (const maker of this.#up('maker')) {
      const unquoted = [...this.#model.rfqs.values()].filter((r) => r.sweep && r.status === 'PENDING' && ![...r.quotes.values()].some((q) => q.maker === maker.name));
      if (unquoted.length === 0 || !this.sweepRng.chance(0.35)) continue;
      const listing = await attempt(() => maker.client.openRfqs({ limit: 100 }), this.#findings, `openRfqs ${maker.name}`);
      if (!listing.ok) continue;
      const open = listing.value.items.filter((r) => unquoted.some((u) => u.id === r.id));
      if (open.length === 0) continue;
      const picked = this.sweepRng.pick(open);
      const rfq = this.#model.rfqs.get(picked.id)!;
      rfq.settlementDeadline ??= picked.settlementDeadline;
      await this.#submit(maker, rfq, this.#part(rfq), null, false, this.sweepRng);
    }
  }

  /**
   * A maker's part of a sweep: now and then the whole size, mostly 40-85 % of it, so that it
   * takes two makers (or a cut) to fill the RFQ.
   */
  #part(rfq: RfqModel): string {
    if (this.sweepRng.chance(0.15)) return rfq.baseQty;
    return share(rfq.instrument, rfq.baseQty, this.sweepRng.int(40, 85)) ?? rfq.baseQty;
  }

  /** The base leg a quote was last acknowledged with (BUY what the maker pays, SELL what it receives). */
  #baseOf(rfq: RfqModel, quote: QuoteModel): string {
    const terms = quote.terms.at(-1)!;
    return rfq.side === 'BUY' ? terms.pays : terms.receives;
  }

  async #requote(reordered: boolean): Promise<void> {
    const mine = [...this.#model.quotes.values()].filter((q) => q.status === 'SUBMITTED' && !q.cancelAcked && this.#stack.isRunning(this.#actor(q.maker).node));
    if (mine.length === 0) return this.#record('-', reordered ? 'reorderedRequotes' : 'requote', {}, 'skipped: no open quote');
    const quote = this.rng.pick(mine);
    const rfq = this.#model.rfqs.get(quote.rfqId)!;
    const maker = this.#actor(quote.maker);
    const makerBase = rfq.sweep ? this.#baseOf(rfq, quote) : rfq.side === 'SELL' ? (quote.terms[0]!.receives) : rfq.baseQty;
    await this.#submit(maker, rfq, makerBase, quote, reordered);
  }

  /** Submits one quote (or, `reordered`, two re-prices at once: either may commit last). */
  async #submit(maker: Actor, rfq: RfqModel, makerBaseQty: string, existing: QuoteModel | null, reordered: boolean, rng: Prng = this.rng): Promise<void> {
    const { instrument } = rfq;
    // A sweep's parts are priced closer to the level (within the taker's bound per unit more often), from the sweep stream.
    const prices = (reordered ? [0, 1] : [0]).map(() => {
      const price = instrument.refPrice * (0.96 + rng.next() * 0.08);
      return rfq.sweep ? instrument.refPrice * (0.985 + this.sweepRng.next() * 0.025) : price;
    });
    // A re-quote keeps its mode; a new spot quote on a chain is sent in xchange mode now and then.
    const chain = this.#stack.chain;
    const mode: QuoteModel['mode'] = instrument.perp ? 'perp' : existing ? existing.mode : chain && maker.adapterSigner && rfq.settlementDeadline !== null && rng.chance(XCHANGE_SHARE) ? 'xchange' : maker.inventoryMode;
    // The maker names an xchange quote's id itself (it is in the signed swap); a re-quote keeps it.
    const xchangeId = mode === 'xchange' ? (existing?.id ?? `qt_${rng.uuid()}`) : null;
    // On a sweep, half the quotes let themselves be cut (never an xchange one: its bundle fixes the amounts).
    const divisible = prices.map(() => rfq.sweep !== null && mode !== 'xchange' && this.sweepRng.chance(0.5));
    const spot = prices.map((price) => {
      // Price in quote micro-units per whole base unit, times the base in its own units.
      const priceUnits = BigInt(Math.round(price * 10 ** TOKENS[instrument.quote]));
      const usdc = formatAmount((units(instrument.base, makerBaseQty) * priceUnits) / 10n ** BigInt(TOKENS[instrument.base]), TOKENS[instrument.quote]);
      const base = { token: instrument.base, amount: makerBaseQty };
      const quote = { token: instrument.quote, amount: usdc };
      return { rfqId: rfq.id, instrumentId: instrument.id, side: rfq.side, makerPays: rfq.side === 'BUY' ? base : quote, makerReceives: rfq.side === 'BUY' ? quote : base };
    }).map((body, i) => (divisible[i] ? { ...body, allOrNone: false } : body));
    const bodies = instrument.perp ? await this.#perpBodies(maker, rfq, makerBaseQty, divisible) : await Promise.all(spot.map(async (body) => {
      if (!xchangeId) return body;
      const xchange = await xchangeBundle(chain!, { quoteId: xchangeId, expiration: rfq.settlementDeadline!, maker: maker.wallet!.address, signer: maker.adapterSigner!, makerPays: body.makerPays, makerReceives: body.makerReceives });
      return { ...body, xchange };
    }));
    const outcomes = await Promise.all(bodies.map((body) => attempt(() => maker.client.submitQuote(body), this.#findings, `submitQuote ${maker.name}`)));
    for (const [i, outcome] of outcomes.entries()) {
      if (!outcome.ok) continue;
      const terms = { pays: bodies[i]!.makerPays.amount, receives: bodies[i]!.makerReceives.amount };
      let quote = this.#model.quotes.get(outcome.value.quoteId);
      if (!quote) {
        quote = { id: outcome.value.quoteId, rfqId: rfq.id, maker: maker.name, acks: 0, terms: [], lastTerms: null, cancelAcked: false, status: 'SUBMITTED', mode, divisible: false };
        if (xchangeId && quote.id !== xchangeId) this.#findings.add('xchangeQuoteId', `xchange quote ${xchangeId} answered with ${quote.id}`);
        this.#model.quotes.set(quote.id, quote);
        rfq.quotes.set(quote.id, quote);
      }
      if (existing && existing.id !== quote.id) this.#findings.add('requoteIdentity', `re-quote of ${existing.id} answered with ${quote.id}`);
      quote.acks++;
      quote.terms.push(terms);
      const concurrent = reordered && outcomes.filter((o) => o.ok).length > 1;
      quote.lastTerms = concurrent ? null : terms;
      quote.divisible = concurrent && divisible[0] !== divisible[1] ? null : divisible[i]!;
    }
    const action = `${reordered ? 'reorderedRequotes' : existing ? 'requote' : 'quote'}${mode === 'xchange' ? '(xchange)' : ''}${rfq.sweep ? '(sweep)' : ''}`;
    this.#record(maker.name, action, bodies, outcomes.map((o) => (o.ok ? `${o.value.quoteId} v${o.value.version}` : o.code)).join(' | '), outcomes.some((o) => o.ok));
  }

  /**
   * A perp quote: the maker's price a tenth to three tenths of a dollar inside the venue's mid
   * (inside the book's first level, a basis point away, so the taker's IOC meets the maker's
   * ALO), on the venue's grid, the legs `p * s` exactly, with the maker's ALO and its cancel signed.
   */
  async #perpBodies(maker: Actor, rfq: RfqModel, size: string, divisible: boolean[]) {
    const asset: PerpAsset = { coin: 'ETH', index: 1, szDecimals: 4 };
    const mid = parseAmount(await this.#stack.venue!.mid(rfq.instrument.refPrice), 6, { field: 'mid' });
    const bodies = [];
    // On a sweep the maker's part (its order for that size), divisible as drawn.
    for (const cut of divisible) {
      const offset = BigInt(this.rng.int(1, 3)) * 100_000n;
      const price = onPerpGrid(rfq.side === 'BUY' ? mid + offset : mid - offset, asset.szDecimals, rfq.side === 'BUY' ? 'up' : 'down');
      const legs = perpMakerLegs({ side: rfq.side, asset, size, price });
      const orders = await signMakerOrders(maker.account, { side: rfq.side, asset, size, price }, 'mainnet', maker.nonces);
      bodies.push({ rfqId: rfq.id, instrumentId: rfq.instrument.id, side: rfq.side, makerPays: legs.makerPays, makerReceives: legs.makerReceives, ...orders, ...(cut ? { allOrNone: false } : {}) });
    }
    return bodies;
  }

  /**
   * The venue misbehaves (the simulator's own fault rules): a maker's next order refused, a
   * maker's nonces burnt (every order it signed so far is refused), the exchange endpoint
   * answering 502 or the info endpoint dropping connections for its next few requests, a taker's
   * next order filled in part, or applied with no reply (the executor must look it up).
   */
  async #venueFault(): Promise<void> {
    const control = this.#stack.venue!.control;
    const kind = this.rng.weighted({ refuseMaker: 3, burnNonces: 2, exchangeDown: 2, infoDown: 2, partialFill: 2, noReply: 2 });
    const maker = this.rng.pick(this.#actors.filter((a) => a.role === 'maker'));
    const taker = this.rng.pick(this.#actors.filter((a) => a.role === 'taker'));
    const count = this.rng.int(1, 4);
    let args: Record<string, unknown>;
    switch (kind) {
      case 'refuseMaker':
        args = { maker: maker.name };
        await control.addFault({ match: { endpoint: 'exchange', action: 'order', user: maker.address }, effect: { type: 'reject', message: 'Insufficient margin to place order' }, count: 1 });
        break;
      case 'burnNonces':
        args = { maker: maker.name, ...(await control.burnNonces(maker.address)) };
        break;
      case 'exchangeDown':
        args = { count };
        await control.addFault({ match: { endpoint: 'exchange' }, effect: { type: 'http', status: 502 }, count });
        break;
      case 'infoDown':
        args = { count };
        await control.addFault({ match: { endpoint: 'info' }, effect: { type: 'infoDown' }, count });
        break;
      case 'partialFill':
        args = { taker: taker.name };
        await control.addFault({ match: { endpoint: 'exchange', action: 'order', user: taker.address }, effect: { type: 'partialFill', fraction: '0.5' }, count: 1 });
        break;
      case 'noReply':
        args = { taker: taker.name };
        await control.addFault({ match: { endpoint: 'exchange', action: 'order', user: taker.address }, effect: { type: 'timeoutAfterApply', holdMs: 300 }, count: 1 });
        break;
    }
    this.#record('venue', `venueFault:${kind}`, args, 'ok');
  }

  async #makerCancel(): Promise<void> {
    const candidates = [...this.#model.quotes.values()].filter((q) => q.status === 'SUBMITTED' && this.#stack.isRunning(this.#actor(q.maker).node));
    if (candidates.length === 0) return this.#record('-', 'makerCancel', {}, 'skipped: no open quote');
    const quote = this.rng.pick(candidates);
    const maker = this.#actor(quote.maker);
    const duplicate = this.rng.chance(0.2);
    const outcomes = await Promise.all((duplicate ? [1, 2] : [1]).map(() => attempt(() => maker.client.cancelQuote(quote.id), this.#findings, `cancelQuote ${maker.name}`)));
    if (outcomes.some((o) => o.ok)) quote.cancelAcked = true;
    this.#record(maker.name, duplicate ? 'makerCancel(duplicate)' : 'makerCancel', { quoteId: quote.id }, outcomes.map((o) => (o.ok ? o.value.status : o.code)).join(' | '), outcomes.some((o) => o.ok));
  }

  async #takerCancel(): Promise<void> {
    const candidates = [...this.#model.rfqs.values()].filter((r) => r.status === 'PENDING' && this.#stack.isRunning(this.#actor(r.taker).node));
    if (candidates.length === 0) return this.#record('-', 'takerCancel', {}, 'skipped: nothing pending');
    const rfq = this.rng.pick(candidates);
    const taker = this.#actor(rfq.taker);
    const duplicate = this.rng.chance(0.2);
    const outcomes = await Promise.all((duplicate ? [1, 2] : [1]).map(() => attempt(() => taker.client.cancelRfq(rfq.id), this.#findings, `cancelRfq ${taker.name}`)));
    if (outcomes.some((o) => o.ok)) rfq.cancelAcked = true;
    this.#record(taker.name, duplicate ? 'takerCancel(duplicate)' : 'takerCancel', { rfqId: rfq.id }, outcomes.map((o) => (o.ok ? o.value.status : o.code)).join(' | '), outcomes.some((o) => o.ok));
  }

  /**
   * The taker reads its quotes and accepts one: with the right version, a stale one (must be
   * refused), or none; `duplicate` sends the same accept twice at once (a retry).
   */
  async #accept(duplicate: boolean, given?: RfqModel): Promise<void> {
    const candidates = [...this.#model.rfqs.values()].filter((r) => r.status === 'PENDING' && r.quotes.size > 0 && this.#stack.isRunning(this.#actor(r.taker).node));
    const action = duplicate ? 'accept(duplicate)' : 'accept';
    if (candidates.length === 0) return this.#record('-', action, {}, 'skipped: no quoted RFQ');
    const rfq = given ?? this.rng.pick(candidates);
    const taker = this.#actor(rfq.taker);
    const read = await attempt(() => taker.client.rfqQuotes(rfq.id, { status: 'SUBMITTED' }), this.#findings, `rfqQuotes ${taker.name}`);
    if (!read.ok || read.value.items.length === 0) return this.#record(taker.name, action, { rfqId: rfq.id }, read.ok ? 'skipped: no SUBMITTED quote' : read.code);
    const quote: Quote = this.rng.pick(read.value.items);
    const mode = this.rng.weighted({ right: 7, stale: 2, none: 1 });
    const stale = mode === 'stale' && quote.version > 1;
    if (rfq.sweep) {
      // A taker mostly waits for a second maker's part before it sweeps (one part seldom fills it).
      if (new Set(read.value.items.map((q) => this.#model.quotes.get(q.quoteId)?.maker)).size < 2 && this.sweepRng.chance(0.7)) {
        return this.#record(taker.name, `${action}(sweep)`, { rfqId: rfq.id }, 'skipped: one maker has quoted so far');
      }
      return this.#acceptSweep(taker, rfq, read.value.items, quote, mode, duplicate, action);
    }
    const body = { quoteId: quote.quoteId, ...(mode === 'none' ? {} : { expectedVersion: stale ? quote.version - 1 : quote.version }) };
    const send = rfq.instrument.perp ? () => this.#acceptPerp(taker, rfq, quote, body.expectedVersion ?? quote.version) : () => taker.client.accept(rfq.id, body);
    const outcomes = await Promise.all((duplicate ? [1, 2] : [1]).map(() => attempt(send, this.#findings, `accept ${taker.name}`)));
    if (outcomes.some((o) => o.ok)) {
      if (stale) this.#findings.add('staleAccept', `accept of ${quote.quoteId} with stale version ${body.expectedVersion} (current ${quote.version}) was acknowledged`);
      rfq.acceptedQuote = quote.quoteId;
    }
    this.#record(taker.name, stale ? `${action}(stale)` : action, { rfqId: rfq.id, ...body }, outcomes.map((o) => (o.ok ? o.value.status : o.code)).join(' | '), outcomes.some((o) => o.ok));
  }

  /**
   * A sweep's accept: `{ sweep: true }` (the service ranks every open quote), `{ quotes: [...] }`
   * (the picked quote and some of the others, each at the version read, the picked one stale
   * when `mode` says so), or a plain `quoteId` (a sweep of that one quote). Now and then a maker
   * cancels or re-prices one of the open quotes at the same moment. Acknowledged: the RFQ's legs
   * are the `quoteIds` answered, the same for a duplicate sent at once.
   */
  async #acceptSweep(taker: Actor, rfq: RfqModel, open: Quote[], picked: Quote, mode: 'right' | 'stale' | 'none', duplicate: boolean, action: string): Promise<void> {
    if (rfq.instrument.perp) return this.#acceptPerpSweep(taker, rfq, open, duplicate, action);
    const form = this.sweepRng.weighted({ sweep: 4, quotes: 3, quoteId: 1 });
    const stale = (q: Quote) => mode === 'stale' && q === picked && q.version > 1;
    const version = (q: Quote) => (mode === 'none' ? {} : { expectedVersion: stale(q) ? q.version - 1 : q.version });
    const named = form === 'quotes' ? open.filter((q) => q === picked || this.sweepRng.chance(0.7)) : form === 'quoteId' ? [picked] : [];
    const body = form === 'sweep' ? { sweep: true as const } : form === 'quotes' ? { quotes: named.map((q) => ({ quoteId: q.quoteId, ...version(q) })) } : { quoteId: picked.quoteId, ...version(picked) };
    const raceable = open.filter((q) => {
      const qm = this.#model.quotes.get(q.quoteId);
      return qm && !qm.cancelAcked && this.#stack.isRunning(this.#actor(qm.maker).node);
    });
    const race = raceable.length > 0 && this.sweepRng.chance(0.25) ? { quote: this.sweepRng.pick(raceable), cancel: this.sweepRng.chance(0.5) } : null;
    const send = () => ('quoteId' in body ? taker.client.accept(rfq.id, body) : taker.client.acceptSweep(rfq.id, body));
    const accepts = Promise.all((duplicate ? [1, 2] : [1]).map(() => attempt(send, this.#findings, `accept ${taker.name}`)));
    const [outcomes, raced] = await Promise.all([accepts, race ? this.#raceAccept(rfq, race.quote, race.cancel) : Promise.resolve(null)]);
    const answered = outcomes.flatMap((o) => (o.ok ? [(o.value as { quoteIds?: string[] }).quoteIds ?? [o.value.quoteId]] : []));
    const legs = answered[0];
    if (legs) {
      if (answered.some((a) => JSON.stringify(a) !== JSON.stringify(legs))) this.#findings.add('ackedAccept', `${rfq.id}: one sweep accept answered ${answered.map((a) => a.join('+')).join(' and ')}`);
      if (named.some(stale)) this.#findings.add('staleAccept', `sweep accept of ${rfq.id} naming ${picked.quoteId} at stale version ${picked.version - 1} (current ${picked.version}) was acknowledged`);
      // A re-price that was acknowledged committed either before the accept (then a version named is stale) or after it (then it re-priced a SELECTED quote).
      if (raced?.requoted && legs.includes(raced.quoteId) && named.some((q) => q.quoteId === raced.quoteId) && mode !== 'none') {
        this.#findings.add('staleAccept', `${rfq.id}: the accept naming ${raced.quoteId} at version ${named.find((q) => q.quoteId === raced.quoteId)!.version} and its re-price were both acknowledged, and it is a leg`);
      }
      rfq.acceptedQuote = legs[0]!;
      rfq.sweep!.acceptedLegs = legs;
    }
    const args = { rfqId: rfq.id, form, ...body, ...(race ? { race: `${race.cancel ? 'cancel' : 'requote'} ${race.quote.quoteId}` } : {}) };
    this.#record(taker.name, `${stale(picked) && named.includes(picked) ? `${action}(stale)` : action}(sweep)`, args, outcomes.map((o) => (o.ok ? `${o.value.status} ${((o.value as { quoteIds?: string[] }).quoteIds ?? [o.value.quoteId]).join('+')}` : o.code)).join(' | '), outcomes.some((o) => o.ok));
  }

  /**
   * A perp sweep, as the client library takes it (PerpTaker.acceptSweep: ranks the open quotes,
   * signs one IOC over the selection, names the quotes), now and then with a maker's cancel or
   * re-price of one of them at the same moment. A selection short of `minFillQty` or a venue read
   * the taker cannot make is refused on the taker's side (no accept sent), not a finding.
   */
  async #acceptPerpSweep(taker: Actor, rfq: RfqModel, open: Quote[], duplicate: boolean, action: string): Promise<void> {
    const terms = { id: rfq.id, instrumentId: rfq.instrument.id, side: rfq.side, baseQty: rfq.baseQty, minFillQty: rfq.sweep!.minFillQty ?? rfq.baseQty, quoteLimit: rfq.quoteLimit };
    const send = async () => {
      try {
        const { accepted } = await taker.perp!.acceptSweep(terms, open);
        return accepted;
      } catch (error) {
        if (error instanceof ApiError) throw error;
        throw new ApiError(499, 'REFUSED_BY_TAKER', error instanceof Error ? error.message.split('\n')[0]! : String(error), undefined, new Headers());
      }
    };
    const raceable = open.filter((q) => {
      const qm = this.#model.quotes.get(q.quoteId);
      return qm && !qm.cancelAcked && this.#stack.isRunning(this.#actor(qm.maker).node);
    });
    const race = raceable.length > 0 && this.sweepRng.chance(0.25) ? { quote: this.sweepRng.pick(raceable), cancel: this.sweepRng.chance(0.5) } : null;
    // A venue refusal mid-sweep: one quoting maker's next order refused (its leg fails, a backup may take its place).
    const refusedMaker = this.sweepRng.chance(0.35) ? this.#model.quotes.get(this.sweepRng.pick(open).quoteId)?.maker : undefined;
    const refused = this.#actors.find((a) => a.role === 'maker' && a.name === refusedMaker) ?? null;
    if (refused) {
      await this.#stack.venue!.control.addFault({ match: { endpoint: 'exchange', action: 'order', user: refused.address }, effect: { type: 'reject', message: 'Insufficient margin to place order' }, count: 1 });
    }
    const accepts = Promise.all((duplicate ? [1, 2] : [1]).map(() => attempt(send, this.#findings, `accept ${taker.name}`)));
    const [outcomes] = await Promise.all([accepts, race ? this.#raceAccept(rfq, race.quote, race.cancel) : Promise.resolve(null)]);
    const answered = outcomes.flatMap((o) => (o.ok ? [o.value.quoteIds] : []));
    const legs = answered[0];
    if (legs) {
      rfq.acceptedQuote = legs[0]!;
      rfq.sweep!.acceptedLegs = legs;
    }
    const args = { rfqId: rfq.id, form: 'perp', ...(race ? { race: `${race.cancel ? 'cancel' : 'requote'} ${race.quote.quoteId}` } : {}), ...(refused ? { venueRefuses: refused.name } : {}) };
    this.#record(taker.name, `${action}(perp sweep)`, args, outcomes.map((o) => (o.ok ? `${o.value.status} ${o.value.quoteIds.join('+')}` : o.code)).join(' | '), outcomes.some((o) => o.ok));
  }

  /** A maker's cancel or re-price of `quote` sent at the moment its RFQ is accepted (the submit records itself). */
  async #raceAccept(rfq: RfqModel, quote: Quote, cancel: boolean): Promise<{ quoteId: string; requoted: boolean }> {
    const qm = this.#model.quotes.get(quote.quoteId)!;
    const maker = this.#actor(qm.maker);
    if (cancel) {
      const outcome = await attempt(() => maker.client.cancelQuote(qm.id), this.#findings, `cancelQuote ${maker.name}`);
      if (outcome.ok) qm.cancelAcked = true;
      this.#record(maker.name, 'makerCancel(racing the accept)', { quoteId: qm.id }, outcome.ok ? outcome.value.status : outcome.code, outcome.ok);
      return { quoteId: qm.id, requoted: false };
    }
    const acks = qm.acks;
    await this.#submit(maker, rfq, this.#baseOf(rfq, qm), qm, false, this.sweepRng);
    return { quoteId: qm.id, requoted: qm.acks > acks };
  }

  /**
   * Once a run with sweeps: a SWEEP RFQ of two legs or more with a leg still to settle takes this
   * step's fault, a node stopped while its legs are pending. With two nodes the other carries the
   * legs' deadlines and settlements alone and the stopped one comes back two steps on (the
   * planned `crashSecondNode`); with one it restarts at once.
   */
  /**
   * A taker sweeps as soon as two makers have quoted parts (half the time, once per RFQ): a SWEEP
   * RFQ it accepts itself, PENDING, its taker's node up, with open quotes of two makers.
   */
  #sweepReady(): RfqModel | null {
    if (!this.#sweeps) return null;
    for (const rfq of this.#model.rfqs.values()) {
      if (!rfq.sweep || rfq.autoAccept || rfq.status !== 'PENDING' || this.#sweepTried.has(rfq.id) || !this.#stack.isRunning(this.#actor(rfq.taker).node)) continue;
      const makers = new Set([...rfq.quotes.values()].filter((q) => q.status === 'SUBMITTED' && !q.cancelAcked).map((q) => q.maker));
      if (makers.size < 2) continue;
      this.#sweepTried.add(rfq.id);
      if (this.sweepRng.chance(0.5)) return rfq;
    }
    return null;
  }

  #sweepCrashDue(): { rfqId: string; pending: string[] } | null {
    if (!this.#sweeps || this.#sweepCrashDone || this.#stack.running().length === 0) return null;
    for (const rfq of this.#model.rfqs.values()) {
      if (!rfq.sweep || rfq.status !== 'QUOTED' || rfq.sweep.legs.size < 2) continue;
      const pending = [...rfq.sweep.legs.values()].filter((l) => l.status === 'SELECTED').map((l) => l.quoteId);
      if (pending.length > 0) return { rfqId: rfq.id, pending };
    }
    return null;
  }

  async #sweepCrash(due: { rfqId: string; pending: string[] }): Promise<void> {
    this.#sweepCrashDone = true;
    const running = Array.from({ length: this.#stack.nodeCount }, (_, i) => i).filter((i) => this.#stack.isRunning(i));
    const index = this.sweepRng.pick(running);
    await this.#stack.stopNode(index);
    const args = { node: index, rfqId: due.rfqId, pendingLegs: due.pending };
    if (running.length >= 2) {
      let back = this.step + 2;
      while (this.#plan.has(back)) back++;
      this.#plan.set(back, 'crashSecondNode');
      return this.#record('-', 'sweepCrash', args, `down until step ${back}`);
    }
    await sleep(this.sweepRng.int(0, 800));
    this.#record('-', 'sweepCrash', args, await this.#start(index));
  }

  /**
   * A perp accept with the taker's signed IOC (the client library's PerpTaker: builder fee, order,
   * accept). The taker's own venue reads may meet a venue fault: that is a refusal the taker sees
   * (no accept sent), not a finding.
   */
  async #acceptPerp(taker: Actor, rfq: RfqModel, quote: Quote, expectedVersion: number): Promise<{ status: string }> {
    try {
      await taker.perp!.accept({ id: rfq.id, instrumentId: rfq.instrument.id, side: rfq.side }, quote, expectedVersion);
      return { status: 'accepted (perp order signed)' };
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // Classified as a refusal on the client's side (below 500: no request reached the service).
      throw new ApiError(499, 'VENUE_UNREACHABLE_FROM_TAKER', error instanceof Error ? error.message.split('\n')[0]! : String(error), undefined, new Headers());
    }
  }

  async #deposit(): Promise<void> {
    const taker = this.rng.pick(this.#actors.filter((a) => a.role === 'taker'));
    const token = this.rng.pick(['USDC', 'ETH', 'BTC'] as const);
    const amount = { USDC: String(this.rng.int(100, 50_000)), ETH: scaled(this.rng.next() * 5 + 0.01, 3), BTC: scaled(this.rng.next() * 0.5 + 0.001, 4) }[token];
    if (this.#stack.chain) await this.depositOnChain([[taker, token, amount]]);
    else await this.fund(taker, token, amount, `sim deposit step ${this.step}`);
  }

  /**
   * Real deposits: each wallet's transfers to custody sent back to back, then their receipts. A
   * mined transfer is acknowledged by the chain; the model credits it once the taker's deposit
   * listing shows it COMPLETED (checks.ts), and by the end of the run every one must be.
   */
  async depositOnChain(transfers: Array<[Actor, Token, string]>): Promise<void> {
    const chain = this.#stack.chain!;
    const sent = await Promise.all(this.#actors.map(async (actor) => {
      const mine = transfers.filter(([a]) => a === actor);
      const hashes = [];
      for (const [, token, amount] of mine) hashes.push({ token, amount, hash: await actor.wallet!.transfer(chain, token, chain.custody, rawOf(token, amount)) });
      return hashes.map((h) => ({ actor, ...h }));
    }));
    for (const { actor, token, amount, hash } of sent.flat()) {
      const receipt = await actor.wallet!.receipt(hash);
      const ok = receipt.status === 'success';
      if (ok) this.#model.deposits.set(hash.toLowerCase(), { txHash: hash.toLowerCase(), user: actor.name, token, raw: rawOf(token, amount), credited: false });
      this.#record(actor.name, 'deposit', { token, amount, txHash: hash }, ok ? `mined in ${receipt.blockNumber}` : 'reverted', ok);
    }
  }

  async #withdraw(): Promise<void> {
    const takers = this.#up('taker');
    if (takers.length === 0) return this.#record('-', 'withdraw', {}, 'skipped: no taker up');
    const taker = this.rng.pick(takers);
    const token = this.rng.pick(['USDC', 'ETH', 'BTC'] as const);
    const amount = { USDC: String(this.rng.int(10, 20_000)), ETH: scaled(this.rng.next() * 2 + 0.01, 3), BTC: scaled(this.rng.next() * 0.1 + 0.001, 4) }[token];
    const idempotencyKey = this.rng.uuid();
    const duplicate = this.rng.chance(0.2);
    const outcomes = await Promise.all((duplicate ? [1, 2] : [1]).map(() => attempt(() => taker.client.createWithdrawal({ token, amount, idempotencyKey }), this.#findings, `withdraw ${taker.name}`)));
    const ids = new Set(outcomes.flatMap((o) => (o.ok ? [o.value.withdrawalId] : [])));
    if (ids.size > 1) this.#findings.add('idempotency', `one withdrawal key gave two withdrawals: ${[...ids].join(', ')}`);
    const id = [...ids][0];
    if (id) this.#model.withdrawals.set(id, { id, user: taker.name, token, amount, status: 'PENDING', idempotencyKey });
    this.#record(taker.name, duplicate ? 'withdraw(duplicate)' : 'withdraw', { token, amount, idempotencyKey }, outcomes.map((o) => (o.ok ? o.value.withdrawalId : o.code)).join(' | '), outcomes.some((o) => o.ok));
  }

  async #operatorDecision(): Promise<void> {
    const pending = [...this.#model.withdrawals.values()].filter((w) => w.status === 'PENDING' || w.status === 'UNRESOLVED');
    if (pending.length === 0) return this.#record('operator', 'operatorDecision', {}, 'skipped: nothing pending');
    if (this.#stack.running().length === 0) return this.#record('operator', 'operatorDecision', {}, 'skipped: no node up');
    const w = this.rng.pick(pending);
    if (w.status === 'UNRESOLVED') {
      await this.#resolveFailed(w.id);
      return;
    }
    const approve = this.rng.chance(0.5);
    const outcome = await attempt(() => (approve ? this.#stack.admin.approveWithdrawal(w.id) : this.#stack.admin.rejectWithdrawal(w.id, 'sim')), this.#findings, `operator ${w.id}`);
    this.#record('operator', approve ? 'approveWithdrawal' : 'rejectWithdrawal', { withdrawalId: w.id }, outcome.ok ? String(outcome.value['status']) : outcome.code, outcome.ok);
  }

  /**
   * The operator resolves an UNRESOLVED withdrawal FAILED (its cancel took the nonce): refused with
   * CUSTODY_TX_MINEABLE while any transaction of it could still be mined.
   */
  async #resolveFailed(id: string): Promise<string> {
    const outcome = await attempt(() => this.#stack.admin.resolveWithdrawal(id, { outcome: 'FAILED' }), this.#findings, `resolve ${id}`);
    this.#record('operator', 'resolveWithdrawal', { withdrawalId: id, outcome: 'FAILED' }, outcome.ok ? String(outcome.value['status']) : outcome.code, outcome.ok);
    return outcome.ok ? 'ok' : outcome.code;
  }

  /** At the end: every UNRESOLVED withdrawal resolved FAILED once nothing of it can be mined. */
  async resolveStuck(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (const w of this.#model.withdrawals.values()) {
      if (w.status !== 'UNRESOLVED') continue;
      while ((await this.#resolveFailed(w.id)) === 'CUSTODY_TX_MINEABLE' && Date.now() < until) await sleep(1000);
    }
  }

  /** A maker publishes a ladder; with every node up, each taker must come to see the new top of book. */
  async #ladderTick(): Promise<void> {
    const makers = this.#up('maker');
    if (!this.prices || makers.length === 0) return this.#record('-', 'ladderTick', {}, 'skipped: no feed');
    const maker = this.rng.pick(makers);
    const published = this.prices.tick(maker, this.rng);
    this.#record(maker.name, 'ladderTick', published, await this.prices.converged(this.#actors, 5000));
  }

  async #wait(): Promise<void> {
    const ms = this.rng.int(100, 1500);
    await sleep(ms);
    this.#record('-', 'wait', { ms }, 'ok');
  }

  /** The service clock jumps (either way) to a new offset within the signing skew. */
  async #clockJump(): Promise<void> {
    const offset = this.rng.int(...CLOCK_OFFSET_RANGE);
    const from = this.#stack.clock.offsetMs;
    this.#stack.clock.offsetMs = offset;
    this.#record('-', 'clockJump', { fromOffsetMs: from, toOffsetMs: offset }, 'ok');
  }

  /** A node stops between two transactions and starts again on the same store and port. */
  async #restartNode(): Promise<void> {
    const index = this.rng.int(0, this.#stack.nodeCount - 1);
    const pauseMs = this.rng.int(0, 800);
    await this.#stack.stopNode(index);
    await sleep(pauseMs);
    this.#record('-', 'restartNode', { node: index, pauseMs }, await this.#start(index));
  }

  /**
   * Starts a node. A node connects to its chain when it starts and cannot start while the RPC is
   * out (a supervisor would keep restarting it): it then stays down until the RPC is back.
   */
  async #start(index: number): Promise<string> {
    try {
      await this.#stack.startNode(index);
      return 'ok';
    } catch (error) {
      if (!this.#stack.chain?.rpcDown) throw error;
      return 'down until the RPC is back: a node cannot start without its chain';
    }
  }

  /**
   * Two nodes: one stops for a few of the next steps while the other carries on alone (its
   * workers take over the auctions and deadlines); it comes back on a later step.
   */
  async #crashSecondNode(): Promise<void> {
    if (this.#stack.nodeCount < 2) return this.#restartNode();
    const down = [0, 1].find((i) => !this.#stack.isRunning(i));
    if (down !== undefined) return this.#record('-', 'nodeBack', { node: down }, await this.#start(down));
    const index = this.rng.int(0, 1);
    await this.#stack.stopNode(index);
    this.#record('-', 'nodeDown', { node: index }, 'ok');
  }

  /**
   * A maker settles a quote it won (listed SELECTED to it, not held back): a permit2 win is
   * relayed (permit fields present), a promised win delivered (its leg sent to custody, once the
   * chain has reached the window's start); an xchange win needs nothing from the maker. As is
   * (`relay`); tampered so Permit2 refuses it and the relay reverts (`badRelay`, permit2 only); or
   * as is and then reorganised away (`reorgRelay`): an anvil snapshot before it, reverted once
   * the transaction is mined but while it is still fewer blocks deep than the nodes' confirmation
   * depth, so no node may have booked it. Acknowledged: a successful receipt that stays (and for
   * a delivery, a block inside the quote's window; outside it the transfer is a deposit of the
   * maker's).
   */
  async #relay(kind: 'relay' | 'badRelay' | 'reorgRelay', given?: Actor, quiet = false): Promise<void> {
    const makers = this.#up('maker');
    if (makers.length === 0) return this.#record('-', kind, {}, 'skipped: no maker up');
    const maker = given ?? this.rng.pick(makers);
    const wins = await this.#wins(maker, kind === 'badRelay' ? ['permit2'] : ['permit2', 'promised']);
    if (!wins.ok) return this.#record(maker.name, kind, {}, `listing refused: ${wins.code}`);
    const head = await this.#stack.chain!.head();
    // A careful maker delivers once the chain has reached its window (the service's clock may be ahead).
    const ready = wins.value.filter((q) => q.settlementMode !== 'promised' || (q.windowStartsAt != null && head.timestamp >= Math.floor(q.windowStartsAt / 1000)));
    if (ready.length === 0) return quiet ? undefined : this.#record(maker.name, kind, {}, 'skipped: nothing won');
    const q = this.rng.pick(ready);
    if (this.#holdNext > 0) {
      this.#holdNext--;
      return this.#hold(maker, q);
    }
    await this.#settleWin(kind, maker, q, false);
  }

  /** A maker's SELECTED wins in `modes` the driver knows, less those it holds back. */
  async #wins(maker: Actor, modes: string[]) {
    const won = await attempt(() => maker.client.makerQuotes({ status: ['SELECTED'], limit: 100 }), this.#findings, `makerQuotes ${maker.name}`);
    if (!won.ok) return won;
    // Settled once: a relay or delivery that stayed on chain is not sent again (a second delivery
    // would be a deposit); one reorganised away, or a relay that reverted, may be sent again.
    const sent = new Set(this.#model.relays.filter((r) => !r.reorged && (r.ok || r.kind === 'delivery')).map((r) => r.quoteId));
    const value = won.value.items.filter((q) => modes.includes(q.settlementMode) && this.#model.quotes.has(q.quoteId) && !this.#held.has(q.quoteId) && !sent.has(q.quoteId) && (q.settlementMode !== 'permit2' || q.permitSignature));
    return { ok: true as const, value };
  }

  /** Sends one win's settlement transaction (relay or delivery) and records what the chain made of it. */
  async #settleWin(kind: 'relay' | 'badRelay' | 'reorgRelay', maker: Actor, q: MakerQuote, late: boolean): Promise<void> {
    const chain = this.#stack.chain!;
    const delivery = q.settlementMode === 'promised';
    const snapshot = kind === 'reorgRelay' ? { id: await chain.call<string>('evm_snapshot'), head: (await chain.head()).number } : null;
    const hash = delivery ? await maker.wallet!.deliver(chain, q) : await maker.wallet!.relay(chain, q, kind === 'badRelay');
    const receipt = await maker.wallet!.receipt(hash);
    const minedAt = await chain.blockTimestamp(receipt.blockNumber);
    // The service's rule (promised-gateway.ts insideWindow): from the window's start second to its end.
    const inWindow = !delivery || (q.windowStartsAt != null && q.windowEndsAt != null && Math.floor(q.windowStartsAt / 1000) <= minedAt && minedAt * 1000 <= q.windowEndsAt);
    const relay = { step: this.step, rfqId: q.rfqId, quoteId: q.quoteId, maker: maker.name, txHash: hash, ok: receipt.status === 'success' && inWindow, tampered: kind === 'badRelay', reorged: false, kind: delivery ? 'delivery' as const : 'relay' as const, late };
    let outcome = `${receipt.status} in ${receipt.blockNumber} at ${minedAt}${delivery && !inWindow ? ' outside the window: a deposit' : ''}`;
    if (snapshot) {
      const head = (await chain.head()).number;
      // Two blocks of margin: one may be mined between this read and the revert.
      if (head - snapshot.head <= SIM_CONFIRMATIONS - 2) {
        if (!(await chain.call<boolean>('evm_revert', [snapshot.id]))) throw new Error('evm_revert refused');
        if ((await chain.call<unknown>('eth_getTransactionReceipt', [hash])) !== null) throw new Error(`relay ${hash} survived the reorganisation`);
        relay.reorged = true;
        outcome += `, reorganised away (${head - snapshot.head} blocks deep)`;
      } else {
        outcome += `, kept: ${head - snapshot.head} blocks deep already`;
      }
    }
    this.#model.relays.push(relay);
    // A delivery mined outside its window (and kept) is an ordinary deposit of the maker's.
    if (delivery && !inWindow && receipt.status === 'success' && !relay.reorged) {
      const token = q.makerPays.token as Token;
      this.#model.deposits.set(hash.toLowerCase(), { txHash: hash.toLowerCase(), user: maker.name, token, raw: rawOf(token, q.makerPays.amount), credited: false });
    }
    if (relay.tampered && relay.ok) this.#findings.add('badRelay', `a tampered permit for ${q.quoteId} settled on chain (${hash})`);
    // Permit2 refuses a permit past its deadline: a late relay that succeeded settled what the service failed.
    if (late && !delivery && receipt.status === 'success') this.#findings.add('lateRelay', `a relay of ${q.quoteId} mined at ${minedAt}, after its deadline ${q.settlementDeadline}, succeeded (${hash})`);
    const action = late ? (delivery ? 'lateDelivery' : 'lateRelay') : delivery ? { relay: 'delivery', badRelay: 'badRelay', reorgRelay: 'reorgDelivery' }[kind] : kind;
    this.#record(maker.name, action, { rfqId: q.rfqId, quoteId: q.quoteId, txHash: hash }, outcome, relay.ok && !relay.reorged);
  }

  /**
   * Makers settle what they won as soon as they see it, as a maker's bot would: after each step,
   * each maker up with a win settles one of them half the time (now and then a bad or
   * reorganised one); then each held win whose deadline the chain has passed is settled late.
   */
  async #makersRelay(): Promise<void> {
    for (const maker of this.#up('maker')) {
      if (!this.rng.chance(0.5)) continue;
      await this.#relay(this.rng.weighted({ relay: 8, badRelay: 1, reorgRelay: 1 }), maker, true);
    }
    await this.settleLate(false);
  }

  /**
   * A late relay or delivery: a maker holds one of its permit2 or promised wins and settles it only
   * once the chain's head is past the settlement deadline. A late relay must revert (Permit2's
   * deadline) and a late delivery is a deposit of the maker's; either way the RFQ ends FAILED.
   */
  async #holdWin(): Promise<void> {
    const makers = this.#up('maker');
    if (makers.length === 0) return this.#record('-', 'lateSettle', {}, 'skipped: no maker up');
    const maker = this.rng.pick(makers);
    const wins = await this.#wins(maker, ['permit2', 'promised']);
    if (!wins.ok) return this.#record(maker.name, 'lateSettle', {}, `listing refused: ${wins.code}`);
    if (wins.value.length === 0) {
      this.#holdNext++;
      return this.#record(maker.name, 'lateSettle', {}, 'nothing won yet: the next win a maker sees will be held');
    }
    this.#hold(maker, this.rng.pick(wins.value));
  }

  #hold(maker: Actor, q: MakerQuote): void {
    this.#held.set(q.quoteId, { maker, quote: q });
    this.#record(maker.name, 'lateSettle', { rfqId: q.rfqId, quoteId: q.quoteId, mode: q.settlementMode, settlementDeadline: q.settlementDeadline }, 'held until the chain is past the deadline');
  }

  /** Settles the held wins whose deadline the chain has passed (`all`: waits for every one, at the end). */
  async settleLate(all: boolean): Promise<void> {
    const chain = this.#stack.chain;
    if (!chain) return;
    const until = Date.now() + 90_000;
    while (this.#held.size > 0) {
      const head = await chain.head();
      for (const [id, { maker, quote }] of this.#held) {
        if (head.timestamp <= (quote.settlementDeadline ?? 0)) continue;
        this.#held.delete(id);
        await this.#settleWin('relay', maker, quote, true);
      }
      if (!all || this.#held.size === 0) return;
      if (Date.now() > until) throw new Error(`held wins ${[...this.#held.keys()].join(', ')} never reached their deadline on chain`);
      await sleep(500);
    }
  }

  /**
   * A custody transaction stuck under-priced: with mining paused, a withdrawal is approved and
   * broadcast, then one block is mined with the base fee raised far above what the transaction
   * offered, and mining resumes (the base fee decays 12.5 % a block, so it stays unminable for
   * some 30 blocks). The broadcaster must replace it at the same nonce with a higher fee; half the
   * time the operator also cancels it (a zero-value replacement), and a withdrawal whose cancel was
   * mined is UNRESOLVED until the operator resolves it FAILED. Paid once or not at all, never twice
   * (the chain is compared with the model at rest).
   */
  async #stuckCustody(): Promise<void> {
    const chain = this.#stack.chain!;
    if (chain.rpcDown || this.#stack.running().length === 0) return this.#record('operator', 'stuckCustody', {}, 'skipped: the nodes cannot reach the chain');
    if (![...this.#model.withdrawals.values()].some((w) => w.status === 'PENDING')) await this.#withdraw();
    const pending = [...this.#model.withdrawals.values()].filter((w) => w.status === 'PENDING');
    if (pending.length === 0) return this.#record('operator', 'stuckCustody', {}, 'skipped: nothing pending');
    const w = this.rng.pick(pending);
    let outcome: string;
    let acked = false;
    await chain.call('evm_setIntervalMining', [0]);
    await chain.call('evm_setAutomine', [false]);
    try {
      const approved = await attempt(() => this.#stack.admin.approveWithdrawal(w.id), this.#findings, `operator ${w.id}`);
      if (!approved.ok) {
        outcome = `approve refused: ${approved.code}`;
      } else {
        acked = true;
        const sent = await this.#custodyTransfer(w.id, ['SENT'], 10_000);
        await chain.call('anvil_setNextBlockBaseFeePerGas', [`0x${SPIKED_BASE_FEE_WEI.toString(16)}`]);
        await chain.call('evm_mine');
        outcome = sent ? `broadcast ${sent['txHash']} at nonce ${sent['nonce']}, base fee raised` : 'not broadcast within 10 s; base fee raised anyway';
        this.#stuck.add(w.id);
        if (sent && this.rng.chance(0.5)) {
          const cancel = await attempt(() => this.#stack.admin.call<Record<string, unknown>>('POST', `/custody/transfers/${sent['transferId'] as string}/cancel`), this.#findings, 'cancel custody transfer');
          outcome += `; operator cancel: ${cancel.ok ? 'requested' : cancel.code}`;
        }
      }
    } finally {
      await chain.call('evm_setAutomine', [true]);
      await chain.call('evm_setIntervalMining', [1]);
    }
    this.#record('operator', 'stuckCustody', { withdrawalId: w.id }, outcome, acked);
  }

  /**
   * At the end: how each stuck withdrawal's transfer ended, counted in the summary (`stuck: ...`):
   * a replacement mined (the fee bump), the operator's cancel mined (paid zero times), or the
   * original mined after all.
   */
  async recordStuckOutcomes(): Promise<void> {
    for (const id of this.#stuck) {
      const t = await this.#custodyTransfer(id, ['CONFIRMED', 'CANCELLED', 'REVERTED', 'UNRESOLVED', 'EXPIRED', 'SENT', 'SIGNED', 'QUEUED'], 0);
      const attempts = (t?.['attempts'] as Array<{ kind: string; txHash: string }> | undefined) ?? [];
      const mined = attempts.find((a) => a.txHash === t?.['txHash']);
      const how = !t ? 'no transfer' : t['status'] === 'CONFIRMED' ? (mined?.kind === 'original' ? 'original mined' : 'replacement mined') : String(t['status']).toLowerCase();
      this.#record('operator', `stuck: ${how}`, { withdrawalId: id, attempts: attempts.map((a) => a.kind) }, String(t?.['status'] ?? 'none'));
    }
  }

  /** The custody transfer of a withdrawal once it is in one of `statuses` (null after `timeoutMs`). */
  async #custodyTransfer(withdrawalId: string, statuses: string[], timeoutMs: number): Promise<Record<string, unknown> | null> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const page = await attempt(() => this.#stack.admin.call<{ items: Array<Record<string, unknown>> }>('GET', '/custody/transfers', undefined, { purpose: 'withdrawal', limit: '100' }), this.#findings, 'custody transfers');
      const row = page.ok ? page.value.items.find((t) => t['ownerId'] === withdrawalId) : undefined;
      if (row && statuses.includes(row['status'] as string)) return row;
      if (Date.now() > until) return null;
      await sleep(100);
    }
  }

  /** The nodes' RPC goes down on one step and comes back on a later one (wallets keep theirs). */
  async #rpcOutage(): Promise<void> {
    const chain = this.#stack.chain!;
    const up = chain.rpcDown;
    chain.setRpc(up);
    if (!up) this.#rpcBackAt = this.step + this.rng.int(1, 3);
    // Nodes that could not start during the outage start now.
    const started: number[] = [];
    if (up) {
      for (let i = 0; i < this.#stack.nodeCount; i++) {
        if (this.#stack.isRunning(i)) continue;
        await this.#stack.startNode(i);
        started.push(i);
      }
    }
    this.#record('-', up ? 'rpcBack' : 'rpcDown', {}, started.length > 0 ? `started nodes ${started.join(', ')}` : 'ok');
  }

  /** Brings every node and the nodes' RPC back (before the final checks). */
  async allUp(): Promise<void> {
    this.#stack.chain?.setRpc(true);
    for (let i = 0; i < this.#stack.nodeCount; i++) await this.#stack.startNode(i);
  }

  #actor(name: string): Actor {
    return this.#actors.find((a) => a.name === name)!;
  }
}
