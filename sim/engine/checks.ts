/**
 * The checks run after every step, comparing the service's views with the model:
 * - the ledger invariants (`GET /admin/v1/invariants`) hold;
 * - every RFQ, quote and withdrawal the API acknowledged is there exactly once, in a status the
 *   domain's tables reach from the one last seen, and each acknowledged cancel, accept and
 *   re-quote shows (a cancelled RFQ is CANCELLED, an accepted RFQ selected exactly that quote, a
 *   quote's version counts its acknowledged submissions);
 * - each quote's `takerTotal` is its leg plus the fee, and an auto-selected winner conforms and
 *   is no worse than any quote it beat;
 * - each user's total per token is what acknowledged actions put there, and its locked amount is
 *   what the tables say its live RFQs and withdrawals hold (read between two identical status
 *   reads, so the workers cannot move anything in between).
 */
import type { Deposit, Quote, Rfq } from '../../src/client/types.ts';
import { feeFloor } from '../../src/domain/money/index.ts';
import { testTokenAbi } from '../../src/chain/artifacts/index.ts';
import { quoteHash } from '../../src/chain/permit.ts';
import type { SimStack } from './stack.ts';
import type { Findings } from './findings.ts';
import { attempt, type Actor } from './actors.ts';
import { WITHDRAWAL_LOCKING, TOKENS, settledLegs, sweepFee, units, type Model, type RfqModel, type SweepLegModel, type Token } from './model.ts';
import { MAKER_INVENTORY, TAKER_STASH, rawOf } from './wallets.ts';
import { mayFollow, quoteGraph, rfqGraph, withdrawalGraph } from './transitions.ts';

const TERMINAL_RFQ = new Set(['SETTLED', 'FAILED', 'CANCELLED']);
const SELECTED_LIKE = new Set(['SELECTED', 'SETTLED', 'FAILED']);

interface RfqRead { rfq: Rfq; quotes: Quote[] }
/** Venue sizes (signed decimals) in units of 10^-8. */
const SIZE_DECIMALS = 8;
function signedSize(value: string): bigint {
  const negative = value.startsWith('-');
  const raw = units8(negative ? value.slice(1) : value);
  return negative ? -raw : raw;
}
function units8(value: string): bigint {
  const [whole, fraction = ''] = value.split('.');
  return BigInt(whole || '0') * 10n ** BigInt(SIZE_DECIMALS) + BigInt((fraction + '0'.repeat(SIZE_DECIMALS)).slice(0, SIZE_DECIMALS) || '0');
}
function formatSize(raw: bigint): string {
  const sign = raw < 0n ? '-' : '';
  const abs = raw < 0n ? -raw : raw;
  const scale = 10n ** BigInt(SIZE_DECIMALS);
  return `${sign}${abs / scale}.${(abs % scale).toString().padStart(SIZE_DECIMALS, '0')}`.replace(/\.?0+$/, '');
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** JSON.stringify's replacer for a model holding bigints. */
const bigints = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);
/** Withdrawal statuses the broadcaster still moves on its own. */
const WITHDRAWAL_MOVING = new Set(['APPROVED', 'PROCESSING']);

export class Checker {
  readonly #stack: SimStack;
  readonly #model: Model;
  readonly #findings: Findings;
  readonly #actors: Actor[];
  /** Steps whose lock comparison found the workers moving and was retried out. */
  unstableReads = 0;
  /** xchange settlements seen SETTLED whose transaction is still to be looked at on chain. */
  #xchangeToVerify: Array<{ rfqId: string; quoteId: string; txHash: string | null }> = [];

  constructor(stack: SimStack, model: Model, findings: Findings, actors: Actor[]) {
    this.#stack = stack;
    this.#model = model;
    this.#findings = findings;
    this.#actors = actors;
  }

  async afterStep(): Promise<void> {
    if (this.#stack.running().length === 0) return;
    await this.#invariants();
    for (const actor of this.#actors) {
      if (!this.#stack.isRunning(actor.node)) continue;
      if (actor.role === 'taker') await this.#taker(actor, false);
      else await this.#maker(actor);
    }
    await this.#verifyXchange();
  }

  /** At the end: everything, including RFQs already terminal, and the full listings. */
  async final(): Promise<void> {
    await this.#invariants();
    for (const actor of this.#actors) {
      if (actor.role === 'taker') await this.#taker(actor, true);
      else await this.#maker(actor);
    }
    await this.#verifyXchange();
    for (const taker of this.#actors.filter((a) => a.role === 'taker')) {
      const ids: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await attempt(() => taker.client.listRfqs({ limit: 100, ...(cursor ? { cursor } : {}) }), this.#findings, 'listRfqs');
        if (!page.ok) break;
        ids.push(...page.value.items.map((r) => r.id));
        if (!page.value.hasMore || !page.value.nextCursor) break;
        cursor = page.value.nextCursor;
      }
      const expected = [...this.#model.rfqs.values()].filter((r) => r.taker === taker.name).map((r) => r.id);
      const listed = new Set(ids);
      if (ids.length !== listed.size) this.#findings.add('exactlyOnce', `${taker.name}: an RFQ is listed twice`);
      for (const id of expected) if (!listed.has(id)) this.#findings.add('exactlyOnce', `${taker.name}: acknowledged RFQ ${id} not listed`);
      for (const id of listed) if (!expected.includes(id)) this.#findings.add('exactlyOnce', `${taker.name}: RFQ ${id} listed but never acknowledged`);
    }
  }

  async #invariants(): Promise<void> {
    const outcome = await attempt(() => this.#stack.admin.invariants(), this.#findings, 'invariants');
    if (!outcome.ok) return;
    // While the nodes' RPC is cut, custody cannot be read: that is the outage itself, reported as such.
    const violations = outcome.value.violations.filter((v) => !(this.#stack.chain?.rpcDown && v.check === 'custodyBalanceUnreadable'));
    if (violations.length > 0) this.#findings.add('invariants', JSON.stringify(violations).slice(0, 2000));
  }

  async #readRfqs(taker: Actor, rfqs: RfqModel[]): Promise<Map<string, RfqRead> | null> {
    const reads = new Map<string, RfqRead>();
    for (const model of rfqs) {
      const rfq = await attempt(() => taker.client.getRfq(model.id), this.#findings, 'getRfq');
      const quotes = await attempt(() => taker.client.rfqQuotes(model.id, { limit: 100 }), this.#findings, 'rfqQuotes');
      if (!rfq.ok || !quotes.ok) {
        this.#findings.add('exactlyOnce', `${taker.name}: acknowledged RFQ ${model.id} unreadable (${rfq.ok ? '' : rfq.code} ${quotes.ok ? '' : quotes.code})`);
        return null;
      }
      reads.set(model.id, { rfq: rfq.value, quotes: quotes.value.items });
    }
    return reads;
  }

  async #taker(taker: Actor, all: boolean): Promise<void> {
    const rfqs = [...this.#model.rfqs.values()].filter((r) => r.taker === taker.name && (all || !TERMINAL_RFQ.has(r.status)));
    // Statuses, balances, statuses again: compare locks only on a read the workers did not move.
    for (let attemptNo = 0; attemptNo < 6; attemptNo++) {
      const first = await this.#readRfqs(taker, rfqs);
      const depositsBefore = await this.#deposits(taker);
      const withdrawalsBefore = await attempt(() => taker.client.withdrawals({ limit: 100 }), this.#findings, 'withdrawals');
      const balances = await attempt(() => taker.client.balances(), this.#findings, 'balances');
      const withdrawals = await attempt(() => taker.client.withdrawals({ limit: 100 }), this.#findings, 'withdrawals');
      const deposits = await this.#deposits(taker);
      const second = await this.#readRfqs(taker, rfqs);
      if (!first || !second || !balances.ok || !withdrawals.ok || !withdrawalsBefore.ok || !deposits || !depositsBefore) return;
      // A sweep's fills too: each leg's status is written with its quote's, so two equal reads agree.
      const statuses = (reads: Map<string, RfqRead>) => JSON.stringify([...reads.values()].map((r) => [r.rfq.status, r.quotes.map((q) => q.status), (r.rfq.fills ?? []).map((f) => f.status)]));
      const others = (d: Deposit[], w: Array<{ status: string }>) => JSON.stringify([d.map((x) => x.status), w.map((x) => x.status)]);
      if (statuses(first) !== statuses(second) || others(depositsBefore, withdrawalsBefore.value.items) !== others(deposits, withdrawals.value.items)) {
        this.unstableReads++;
        continue;
      }
      for (const read of first.values()) this.#rfq(read);
      for (const w of withdrawals.value.items) this.#withdrawal(taker, w.withdrawalId, w.status);
      this.#deposited(taker, deposits);
      this.#money(taker, first, balances.value.balances);
      return;
    }
  }

  #rfq({ rfq, quotes }: RfqRead): void {
    const model = this.#model.rfqs.get(rfq.id)!;
    if (!mayFollow(rfqGraph, model.status, rfq.status, 'reachable')) this.#findings.add('rfqTransition', `${rfq.id}: ${model.status} -> ${rfq.status}`);
    model.status = rfq.status;
    if (model.cancelAcked && rfq.status !== 'CANCELLED') this.#findings.add('ackedCancel', `${rfq.id}: cancel acknowledged, status ${rfq.status}`);
    if (model.sweep) return this.#sweep(model, rfq, quotes);
    if (rfq.fill !== undefined || rfq.fills !== undefined) this.#findings.add('sweepFields', `${rfq.id}: an RFQ without fill shows fill ${rfq.fill} / fills ${JSON.stringify(rfq.fills)}`);
    // A perp RFQ may hold many FAILED quotes (orders refused, the cascade) beside its one winner.
    const perp = model.instrument.perp === true;
    const selected = quotes.filter((q) => (perp ? q.status === 'SELECTED' || q.status === 'SETTLED' : SELECTED_LIKE.has(q.status)));
    if (selected.length > 1) this.#findings.add('oneWinner', `${rfq.id}: ${selected.map((q) => `${q.quoteId}=${q.status}`).join(', ')}`);
    if (rfq.status === 'QUOTED' && selected[0]?.status !== 'SELECTED') this.#findings.add('oneWinner', `${rfq.id}: QUOTED with no SELECTED quote`);
    if ((rfq.status === 'PENDING' || rfq.status === 'CANCELLED') && selected.length > 0) this.#findings.add('oneWinner', `${rfq.id}: ${rfq.status} with a selected quote`);
    if (model.acceptedQuote && perp) this.#perpAccept(model, rfq, quotes);
    else if (model.acceptedQuote) {
      if (rfq.status === 'PENDING' || rfq.status === 'CANCELLED') this.#findings.add('ackedAccept', `${rfq.id}: accept of ${model.acceptedQuote} acknowledged, status ${rfq.status}`);
      else if (selected[0]?.quoteId !== model.acceptedQuote) this.#findings.add('ackedAccept', `${rfq.id}: accepted ${model.acceptedQuote}, selected ${selected[0]?.quoteId}`);
    }
    const listed = new Set(quotes.map((q) => q.quoteId));
    if (listed.size !== quotes.length) this.#findings.add('exactlyOnce', `${rfq.id}: a quote is listed twice`);
    for (const id of model.quotes.keys()) if (!listed.has(id)) this.#findings.add('exactlyOnce', `${rfq.id}: acknowledged quote ${id} missing`);
    for (const q of quotes) {
      const qm = model.quotes.get(q.quoteId);
      if (!qm) {
        this.#findings.add('exactlyOnce', `${rfq.id}: quote ${q.quoteId} never acknowledged`);
        continue;
      }
      if (q.version !== qm.acks) this.#findings.add('quoteVersion', `${q.quoteId}: version ${q.version} after ${qm.acks} acknowledged submissions`);
      const terms = { pays: q.makerPays.amount, receives: q.makerReceives.amount };
      const matches = (t: { pays: string; receives: string }) => t.pays === terms.pays && t.receives === terms.receives;
      if (qm.lastTerms ? !matches(qm.lastTerms) : !qm.terms.some(matches)) this.#findings.add('quoteTerms', `${q.quoteId}: shows ${JSON.stringify(terms)}, acknowledged ${JSON.stringify(qm.lastTerms ?? qm.terms)}`);
      this.#quoteStatus(q.quoteId, q.status);
      this.#takerTotal(model, q);
    }
    if (rfq.status !== 'PENDING' && rfq.status !== 'CANCELLED' && model.autoAccept && !model.acceptedQuote && selected[0]) this.#autoWinner(model, selected[0], quotes);
    this.#settlement(model, rfq, selected[0]);
  }

  /**
   * On a chain: an RFQ is SETTLED only by a relay a maker made of the selected quote whose
   * receipt succeeded and was not reorganised away (nothing settles unacknowledged), and such a
   * relay never leaves its RFQ FAILED (the deadline is judged on final chain time, which includes
   * the relay's block). The settled legs are what moves the model's balances.
   */
  #settlement(model: RfqModel, rfq: Rfq, winner: Quote | undefined): void {
    const relays = this.#model.relays.filter((r) => r.rfqId === rfq.id && r.ok && !r.reorged);
    if (rfq.status === 'SETTLED') {
      if (!winner) return this.#findings.add('oneWinner', `${rfq.id}: SETTLED with no settled quote`);
      const xchange = this.#model.quotes.get(winner.quoteId)?.mode === 'xchange';
      // custody executes an xchange swap itself: the chain must show that execution, once.
      if (this.#stack.chain && xchange && !model.settled) this.#xchangeToVerify.push({ rfqId: rfq.id, quoteId: winner.quoteId, txHash: rfq.txHash ?? null });
      if (this.#stack.chain && !model.instrument.perp && !xchange && !relays.some((r) => r.quoteId === winner.quoteId)) {
        this.#findings.add('unacknowledgedSettlement', `${rfq.id}: SETTLED (${rfq.txHash ?? 'no tx'}) with no acknowledged relay of ${winner.quoteId}; relays ${JSON.stringify(this.#model.relays.filter((r) => r.rfqId === rfq.id))}`);
      }
      const legs = { quoteId: winner.quoteId, takerTotal: winner.takerTotal, makerPays: winner.makerPays.amount, makerReceives: winner.makerReceives.amount, ...(model.instrument.perp ? { perpFilledSize: winner.perpFilledSize ?? null } : {}) };
      if (model.settled && JSON.stringify(model.settled) !== JSON.stringify(legs)) this.#findings.add('settledTwice', `${rfq.id}: settled ${JSON.stringify(model.settled)}, now ${JSON.stringify(legs)}`);
      model.settled = legs;
    }
    // A win its maker settled only after the deadline (lateSettle): the RFQ fails, as the spec's table says.
    const late = this.#model.relays.filter((r) => r.rfqId === rfq.id && r.late);
    if (late.length > 0 && TERMINAL_RFQ.has(rfq.status) && (rfq.status !== 'FAILED' || rfq.failureCode !== 'SETTLEMENT_FAILED')) {
      this.#findings.add('lateSettlement', `${rfq.id}: ${rfq.status} (${rfq.failureCode ?? ''}) although its maker settled only after the deadline: ${late.map((r) => `${r.kind} ${r.txHash}`).join(', ')}`);
    }
    if (rfq.status === 'FAILED' && relays.length > 0) {
      this.#findings.add('relayLost', `${rfq.id}: FAILED (${rfq.failureCode ?? ''}) after the acknowledged ${relays.map((r) => `${r.kind} ${r.txHash}`).join(', ')}`);
    }
  }

  /**
   * A SWEEP RFQ (as record 0079 built it), on a stable read:
   * - it echoes `fill` and `minFillQty` (the size when none was asked for);
   * - its `fills` are exactly its selected quotes (SELECTED, SETTLED or FAILED), each fill's status
   *   its quote's, none before selection; their bases sum to at most `baseQty` and at least
   *   `minFillQty`; the accept's answered `quoteIds` are the fills in order;
   * - each leg is its quote as selected: whole (the terms acknowledged), or cut (at most one, the
   *   last in rank, from a quote its maker let be cut, never xchange): its base below the quote's,
   *   its quote leg the acknowledged price per unit rounded in the maker's favour;
   * - each leg keeps the taker's bound per unit, fee included;
   * - the RFQ is QUOTED while a leg is SELECTED, SETTLED once every leg ended and one settled,
   *   with `executedPayAmount`, `executedRecvAmount` and `takerFee` the settled legs' sums, FAILED
   *   when none did; it carries no `txHash`, each settled leg its own;
   * - on a chain, per leg as for a single winner (`#legSettlement`).
   */
  #sweep(model: RfqModel, rfq: Rfq, quotes: Quote[]): void {
    const sweep = model.sweep!;
    const { base, quote: quoteToken } = model.instrument;
    const bad = (detail: string) => this.#findings.add('sweep', `${rfq.id}: ${detail}`);
    if (rfq.fill !== 'SWEEP' || rfq.minFillQty !== (sweep.minFillQty ?? rfq.baseQty)) bad(`fill ${rfq.fill}, minFillQty ${rfq.minFillQty}, asked ${sweep.minFillQty ?? `(none: ${rfq.baseQty})`}`);
    const listed = new Set(quotes.map((q) => q.quoteId));
    if (listed.size !== quotes.length) this.#findings.add('exactlyOnce', `${rfq.id}: a quote is listed twice`);
    for (const id of model.quotes.keys()) if (!listed.has(id)) this.#findings.add('exactlyOnce', `${rfq.id}: acknowledged quote ${id} missing`);
    const fills = rfq.fills ?? [];
    const byId = new Map(quotes.map((q) => [q.quoteId, q]));
    // A perp sweep's FAILED quotes may be refused accepts (no leg) as well as failed legs (record 0082).
    const perp = model.instrument.perp === true;
    const selected = quotes.filter((q) => (perp ? q.status === 'SELECTED' || q.status === 'SETTLED' : SELECTED_LIKE.has(q.status))).map((q) => q.quoteId).sort();
    const legIds = fills.filter((f) => !perp || f.status !== 'FAILED').map((f) => f.quoteId).sort();
    if (JSON.stringify(legIds) !== JSON.stringify(selected)) bad(`fills ${fills.map((f) => `${f.quoteId}=${f.status}`).join(', ')}, selected quotes ${selected.join(', ')}`);
    if (perp && fills.some((f) => byId.get(f.quoteId) === undefined)) bad(`a leg of ${fills.map((f) => f.quoteId).join(', ')} is not one of its quotes`);
    if ((rfq.status === 'PENDING' || rfq.status === 'CANCELLED' || rfq.failureCode === 'NO_CONFORMING_QUOTE') && fills.length > 0) bad(`${rfq.status} (${rfq.failureCode ?? ''}) with fills`);
    if (rfq.txHash) bad(`carries txHash ${rfq.txHash}`);
    if (perp) this.#perpSweepAccept(model, rfq, quotes);
    else {
      if (sweep.acceptedLegs && rfq.status !== 'PENDING' && rfq.status !== 'CANCELLED' && JSON.stringify(fills.map((f) => f.quoteId)) !== JSON.stringify(sweep.acceptedLegs)) {
        this.#findings.add('ackedAccept', `${rfq.id}: the accept answered legs ${sweep.acceptedLegs.join(', ')}, the RFQ fills ${fills.map((f) => f.quoteId).join(', ')} (${rfq.status})`);
      }
      if (sweep.acceptedLegs && (rfq.status === 'PENDING' || rfq.status === 'CANCELLED')) this.#findings.add('ackedAccept', `${rfq.id}: sweep accept of ${sweep.acceptedLegs.join(', ')} acknowledged, status ${rfq.status}`);
    }
    for (const q of quotes) {
      const qm = model.quotes.get(q.quoteId);
      if (!qm) {
        this.#findings.add('exactlyOnce', `${rfq.id}: quote ${q.quoteId} never acknowledged`);
        continue;
      }
      if (q.version !== qm.acks) this.#findings.add('quoteVersion', `${q.quoteId}: version ${q.version} after ${qm.acks} acknowledged submissions`);
      this.#quoteStatus(q.quoteId, q.status);
    }
    const legs: SweepLegModel[] = [];
    let filled = 0n;
    for (const [i, f] of fills.entries()) {
      const q = byId.get(f.quoteId);
      const qm = model.quotes.get(f.quoteId);
      if (!q || !qm) continue;
      if (f.status !== q.status) bad(`fill ${f.quoteId} ${f.status}, its quote ${q.status}`);
      const legBase = units(base, rfq.side === 'BUY' ? q.makerPays.amount : q.makerReceives.amount);
      const legQuote = units(quoteToken, rfq.side === 'BUY' ? q.makerReceives.amount : q.makerPays.amount);
      if (units(base, f.baseQty) !== legBase || units(quoteToken, f.quoteQty) !== legQuote) bad(`fill ${f.quoteId} ${f.baseQty} / ${f.quoteQty}, its quote as selected ${legBase} / ${legQuote} raw`);
      const fee = sweepFee(model, legQuote);
      // Each quote's takerTotal is its own: BUY its quote leg plus the fee on it, SELL the base it takes.
      const takerTotal = rfq.side === 'BUY' ? units(quoteToken, q.takerTotal) !== legQuote + fee : units(base, q.takerTotal) !== legBase;
      if (takerTotal) this.#findings.add('takerTotal', `${q.quoteId}: takerTotal ${q.takerTotal} on a sweep leg of ${f.baseQty} / ${f.quoteQty}`);
      // A perp backup promoted for a refused leg joins the legs behind the others, cut or not.
      this.#cut(model, q, qm, legBase, legQuote, perp || i === fills.length - 1, bad);
      if (model.quoteLimit !== null) {
        const taker = rfq.side === 'BUY' ? legQuote + fee : legQuote - fee;
        const lhs = taker * units(base, model.baseQty);
        const rhs = units(quoteToken, model.quoteLimit) * legBase;
        if (rfq.side === 'BUY' ? lhs > rhs : lhs < rhs) bad(`leg ${f.quoteId} (${f.baseQty} for ${taker} raw, fee included) breaks the bound ${model.quoteLimit} per ${model.baseQty}`);
      }
      if (f.status === 'SETTLED' && !perp && !f.txHash) bad(`leg ${f.quoteId} SETTLED with no txHash`);
      if (perp && f.txHash) bad(`perp leg ${f.quoteId} carries txHash ${f.txHash}`);
      // A perp leg SETTLED with a share of the taker's fill, at most its own size.
      if (perp && f.status === 'SETTLED' && (q.perpFilledSize === undefined || q.perpFilledSize === null || units(base, q.perpFilledSize) <= 0n || units(base, q.perpFilledSize) > legBase)) bad(`perp leg ${f.quoteId} SETTLED with perpFilledSize ${q.perpFilledSize} of ${f.baseQty}`);
      if (!perp || f.status !== 'FAILED') filled += legBase;
      legs.push({ quoteId: f.quoteId, base: legBase, quoteQty: legQuote, fee, status: f.status, makerPays: q.makerPays.amount, makerReceives: q.makerReceives.amount, ...(perp ? { perpFilledSize: q.perpFilledSize ?? null } : {}) });
    }
    // Quotes not selected keep the terms acknowledged (a cut is only ever of a leg).
    for (const q of quotes) {
      const qm = model.quotes.get(q.quoteId);
      if (!qm || fills.some((f) => f.quoteId === q.quoteId)) continue;
      const matches = (t: { pays: string; receives: string }) => t.pays === q.makerPays.amount && t.receives === q.makerReceives.amount;
      if (qm.lastTerms ? !matches(qm.lastTerms) : !qm.terms.some(matches)) this.#findings.add('quoteTerms', `${q.quoteId}: shows ${q.makerPays.amount} / ${q.makerReceives.amount}, acknowledged ${JSON.stringify(qm.lastTerms ?? qm.terms)}`);
      this.#takerTotalSweep(model, q);
    }
    if (fills.length > 0) {
      const minFill = units(base, sweep.minFillQty ?? model.baseQty);
      // A perp leg refused and not refilled, or left without a share, only reduces the fill.
      if (filled > units(base, model.baseQty) || (!perp && filled < minFill)) bad(`legs fill ${filled} raw of ${model.baseQty} (minFillQty ${sweep.minFillQty ?? model.baseQty})`);
    }
    const open = legs.some((l) => l.status === 'SELECTED');
    const settled = legs.filter((l) => l.status === 'SETTLED');
    if (fills.length > 0) {
      const want = open ? 'QUOTED' : settled.length > 0 ? 'SETTLED' : 'FAILED';
      if (rfq.status !== want) bad(`${rfq.status} with legs ${legs.map((l) => `${l.quoteId}=${l.status}`).join(', ')} (want ${want})`);
    }
    // A perp moves nothing on the ledger: no executed amounts (its fills are checked at the venue).
    if (rfq.status === 'SETTLED' && !perp) {
      const sum = (pick: (l: SweepLegModel) => bigint) => settled.reduce((t, l) => t + pick(l), 0n);
      const baseSum = sum((l) => l.base);
      const quoteSum = rfq.side === 'BUY' ? sum((l) => l.quoteQty + l.fee) : sum((l) => l.quoteQty - l.fee);
      const [pay, recv] = rfq.side === 'BUY' ? [units(quoteToken, rfq.executedPayAmount ?? '0'), units(base, rfq.executedRecvAmount ?? '0')] : [units(base, rfq.executedPayAmount ?? '0'), units(quoteToken, rfq.executedRecvAmount ?? '0')];
      const [wantPay, wantRecv] = rfq.side === 'BUY' ? [quoteSum, baseSum] : [baseSum, quoteSum];
      if (pay !== wantPay || recv !== wantRecv || units(quoteToken, rfq.takerFee ?? '0') !== sum((l) => l.fee)) {
        bad(`SETTLED with pay ${rfq.executedPayAmount}, receive ${rfq.executedRecvAmount}, fee ${rfq.takerFee}; its settled legs sum to ${wantPay} / ${wantRecv} / ${sum((l) => l.fee)} raw`);
      }
    }
    for (const leg of legs) {
      const before = sweep.legs.get(leg.quoteId);
      if (before?.status === 'SETTLED' && JSON.stringify({ ...before, status: '' }, bigints) !== JSON.stringify({ ...leg, status: '' }, bigints)) {
        this.#findings.add('settledTwice', `${rfq.id}: leg ${leg.quoteId} settled as ${JSON.stringify(before, bigints)}, now ${JSON.stringify(leg, bigints)}`);
      }
      if (before && before.status !== 'SELECTED' && before.status !== leg.status) bad(`leg ${leg.quoteId} ${before.status} -> ${leg.status}`);
      if (!perp) this.#legSettlement(rfq, leg, before?.status === 'SETTLED', fills.find((f) => f.quoteId === leg.quoteId)?.txHash ?? null);
    }
    if (legs.length > 0 || sweep.legs.size === 0) sweep.legs = new Map(legs.map((l) => [l.quoteId, l]));
  }

  /**
   * A leg's quote as the taker sees it: its acknowledged terms, or a cut of them. A cut keeps the
   * acknowledged price per unit: its base below the quote's, its quote leg that base's share of
   * the quote leg rounded in the maker's favour (up when the maker receives it, BUY; down when it
   * pays it, SELL). Only a quote its maker let be cut, never an xchange quote, and only the last leg.
   */
  #cut(model: RfqModel, q: Quote, qm: { lastTerms: { pays: string; receives: string } | null; terms: Array<{ pays: string; receives: string }>; divisible: boolean | null; mode: string }, legBase: bigint, legQuote: bigint, last: boolean, bad: (detail: string) => void): void {
    const { base, quote: quoteToken } = model.instrument;
    const candidates = qm.lastTerms ? [qm.lastTerms] : qm.terms;
    const whole = candidates.some((t) => t.pays === q.makerPays.amount && t.receives === q.makerReceives.amount);
    if (whole) return;
    const cutOf = candidates.find((t) => {
      const origBase = units(base, model.side === 'BUY' ? t.pays : t.receives);
      const origQuote = units(quoteToken, model.side === 'BUY' ? t.receives : t.pays);
      if (legBase <= 0n || legBase >= origBase) return false;
      const product = origQuote * legBase;
      const want = model.side === 'BUY' ? (product + origBase - 1n) / origBase : product / origBase;
      return want === legQuote;
    });
    if (!cutOf) return bad(`leg ${q.quoteId} shows ${q.makerPays.amount} / ${q.makerReceives.amount}: neither acknowledged (${JSON.stringify(candidates)}) nor a cut of them at its price`);
    if (qm.divisible === false) bad(`leg ${q.quoteId} was cut although its last acknowledged submission was all-or-none`);
    if (qm.mode === 'xchange') bad(`xchange leg ${q.quoteId} was cut`);
    if (!last) bad(`cut leg ${q.quoteId} is not the last in rank`);
  }

  /** A sweep quote's own takerTotal: BUY its quote leg plus the fee on it, SELL the base it takes. */
  #takerTotalSweep(rfq: RfqModel, q: Quote): void {
    const { base, quote } = rfq.instrument;
    const ok = rfq.side === 'BUY'
      ? units(quote, q.takerTotal) === units(quote, q.makerReceives.amount) + sweepFee(rfq, units(quote, q.makerReceives.amount))
      : units(base, q.takerTotal) === units(base, q.makerReceives.amount);
    if (!ok) this.#findings.add('takerTotal', `${q.quoteId}: takerTotal ${q.takerTotal} on a sweep quote of ${q.makerPays.amount} / ${q.makerReceives.amount}`);
  }

  /**
   * One leg on a chain, as a single winner is checked in `#settlement`: SETTLED only by an
   * acknowledged relay or delivery of its quote (an xchange leg: custody's execution of it, looked
   * at on chain), never FAILED after one, and FAILED when its maker settled only after the deadline.
   */
  #legSettlement(rfq: Rfq, leg: SweepLegModel, known: boolean, txHash: string | null): void {
    if (!this.#stack.chain) return;
    const relays = this.#model.relays.filter((r) => r.quoteId === leg.quoteId && r.ok && !r.reorged);
    const xchange = this.#model.quotes.get(leg.quoteId)?.mode === 'xchange';
    if (leg.status === 'SETTLED' && xchange && !known) this.#xchangeToVerify.push({ rfqId: rfq.id, quoteId: leg.quoteId, txHash });
    if (leg.status === 'SETTLED' && !xchange && relays.length === 0) {
      this.#findings.add('unacknowledgedSettlement', `${rfq.id}: leg ${leg.quoteId} SETTLED (${txHash ?? 'no tx'}) with no acknowledged relay of it; relays ${JSON.stringify(this.#model.relays.filter((r) => r.quoteId === leg.quoteId))}`);
    }
    const late = this.#model.relays.filter((r) => r.quoteId === leg.quoteId && r.late);
    if (late.length > 0 && leg.status === 'SETTLED') this.#findings.add('lateSettlement', `${rfq.id}: leg ${leg.quoteId} SETTLED although its maker settled only after the deadline: ${late.map((r) => `${r.kind} ${r.txHash}`).join(', ')}`);
    if (leg.status === 'FAILED' && relays.length > 0) this.#findings.add('relayLost', `${rfq.id}: leg ${leg.quoteId} FAILED after the acknowledged ${relays.map((r) => `${r.kind} ${r.txHash}`).join(', ')}`);
  }

  /**
   * An xchange RFQ SETTLED: its `txHash` is a successful transaction sent by custody to the
   * adapter, carrying the adapter's event for this quote (keccak of its id is the event's first
   * topic after the signature). Anything else settled what custody never executed.
   */
  async #verifyXchange(): Promise<void> {
    const chain = this.#stack.chain;
    const pending = this.#xchangeToVerify;
    this.#xchangeToVerify = [];
    if (!chain) return;
    const adapter = chain.test.stack.settings.xchangeAdapterAddress!.toLowerCase();
    for (const { rfqId, quoteId, txHash } of pending) {
      const receipt = txHash ? await chain.call<{ status: string; from: string; to: string; logs: Array<{ address: string; topics: string[] }> } | null>('eth_getTransactionReceipt', [txHash]) : null;
      const ok = receipt !== null && receipt.status === '0x1' && receipt.from.toLowerCase() === chain.custody.toLowerCase() && receipt.to?.toLowerCase() === adapter
        && receipt.logs.some((l) => l.address.toLowerCase() === adapter && l.topics[1] === quoteHash(quoteId));
      if (!ok) this.#findings.add('unacknowledgedSettlement', `${rfqId}: xchange ${quoteId} SETTLED by ${txHash ?? 'no tx'}, which is not custody's execution of it: ${JSON.stringify(receipt).slice(0, 400)}`);
    }
  }

  async #deposits(taker: Actor): Promise<Deposit[] | null> {
    if (!this.#stack.chain) return [];
    const page = await attempt(() => taker.client.deposits({ limit: 100 }), this.#findings, 'deposits');
    return page.ok ? page.value.items : null;
  }

  /** Each listed deposit is a transfer the chain acknowledged, listed once; COMPLETED credits it in the model. */
  #deposited(taker: Actor, items: Deposit[]): void {
    const seen = new Set<string>();
    for (const d of items) {
      const hash = d.txHash.toLowerCase();
      if (seen.has(hash)) this.#findings.add('exactlyOnce', `${taker.name}: deposit ${hash} listed twice`);
      seen.add(hash);
      const dm = this.#model.deposits.get(hash);
      if (!dm || dm.user !== taker.name) {
        this.#findings.add('exactlyOnce', `${taker.name}: deposit ${hash} (${d.status}) never sent by it`);
        continue;
      }
      if (d.token !== dm.token || units(dm.token, d.amount) !== dm.raw) this.#findings.add('depositAmount', `${hash}: listed ${d.amount} ${d.token}, sent ${dm.raw} raw ${dm.token}`);
      if (dm.credited && d.status !== 'COMPLETED') this.#findings.add('depositTransition', `${hash}: COMPLETED -> ${d.status}`);
      if (d.status === 'COMPLETED') dm.credited = true;
    }
  }

  /** Waits until every deposit the chain acknowledged shows COMPLETED (a finding after `timeoutMs`). */
  async depositsCredited(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      // Makers too: a promised delivery mined outside its window is a deposit of the maker's.
      for (const actor of this.#actors) {
        const items = await this.#deposits(actor);
        if (items) this.#deposited(actor, items);
      }
      const missing = [...this.#model.deposits.values()].filter((d) => !d.credited);
      if (missing.length === 0) return;
      if (Date.now() > until) return this.#findings.add('depositNotCredited', `${missing.map((d) => `${d.user} ${d.txHash}`).join(', ')} not COMPLETED ${timeoutMs / 1000} s on`);
      await sleep(500);
    }
  }

  /** Waits until no approved withdrawal is still on its way (the broadcaster's to finish). */
  async withdrawalsAtRest(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      let moving: string[] = [];
      for (const taker of this.#actors.filter((a) => a.role === 'taker')) {
        const page = await attempt(() => taker.client.withdrawals({ limit: 100 }), this.#findings, 'withdrawals');
        if (!page.ok) continue;
        for (const w of page.value.items) this.#withdrawal(taker, w.withdrawalId, w.status);
        moving = moving.concat(page.value.items.filter((w) => WITHDRAWAL_MOVING.has(w.status)).map((w) => `${w.withdrawalId}=${w.status}`));
      }
      if (moving.length === 0) return;
      if (Date.now() > until) return this.#findings.add('withdrawalStuck', `${moving.join(', ')} ${timeoutMs / 1000} s on`);
      await sleep(500);
    }
  }

  /**
   * Waits until custody has nothing of its own in flight (promised payouts, xchange executions,
   * approvals: nothing QUEUED, SIGNED or SENT), then requires every promised payout paid: a payout
   * REVERTED or UNRESOLVED leaves a maker unpaid (custody holds everything in the simulation).
   */
  async custodyAtRest(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    const inFlight = new Set(['QUEUED', 'SIGNED', 'SENT']);
    for (;;) {
      const rows: Array<Record<string, unknown>> = [];
      for (const purpose of ['payout', 'xchange', 'approval']) {
        const page = await attempt(() => this.#stack.admin.call<{ items: Array<Record<string, unknown>> }>('GET', '/custody/transfers', undefined, { purpose, limit: '100' }), this.#findings, 'custody transfers');
        if (page.ok) rows.push(...page.value.items);
      }
      const moving = rows.filter((t) => inFlight.has(t['status'] as string));
      if (moving.length === 0) {
        const unpaid = rows.filter((t) => t['purpose'] === 'payout' && t['status'] !== 'CONFIRMED');
        if (unpaid.length > 0) this.#findings.add('payoutUnpaid', unpaid.map((t) => `${t['ownerId'] as string}=${t['status'] as string} (${t['lastError'] as string})`).join(', '));
        const owed = await attempt(() => this.#stack.admin.unpaidPayouts(), this.#findings, 'unpaid payouts');
        if (owed.ok && owed.value.items.length > 0) this.#findings.add('payoutUnpaid', `still owed at rest: ${JSON.stringify(owed.value.items.map((t) => t['ownerId']))}`);
        return;
      }
      if (Date.now() > until) return this.#findings.add('custodyStuck', `${moving.map((t) => `${t['purpose'] as string} ${t['ownerId'] as string}=${t['status'] as string}`).join(', ')} ${timeoutMs / 1000} s on`);
      await sleep(500);
    }
  }

  /** After the final reads (every settled trade known): each settled promised trade paid its maker exactly once, the leg it won; nothing else was paid. */
  async payoutsOnce(): Promise<void> {
    const page = await attempt(() => this.#stack.admin.call<{ items: Array<Record<string, unknown>> }>('GET', '/custody/transfers', undefined, { purpose: 'payout', limit: '100' }), this.#findings, 'custody transfers');
    if (!page.ok) return;
    for (const rfq of this.#model.rfqs.values()) {
      const quote = rfq.settled ? this.#model.quotes.get(rfq.settled.quoteId) : undefined;
      const paid = page.value.items.filter((t) => t['status'] === 'CONFIRMED' && rfq.quotes.has(t['ownerId'] as string));
      // A sweep: each settled promised leg paid once, its leg as selected.
      const want = rfq.sweep
        ? settledLegs(rfq).filter((l) => this.#model.quotes.get(l.quoteId)?.mode === 'promised').map((l) => `${l.quoteId} ${l.makerReceives}`).sort()
        : quote?.mode === 'promised' ? [`${quote.id} ${rfq.settled!.makerReceives}`] : [];
      const got = paid.map((t) => `${t['ownerId'] as string} ${t['amount'] as string}`).sort();
      if (JSON.stringify(got) !== JSON.stringify(want)) this.#findings.add('payoutOnce', `${rfq.id} (${rfq.status}): payouts ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
    }
  }

  /**
   * At rest, the chain itself against the model (not the ledger): custody holds every taker's
   * total plus the fees of settled trades; each taker's wallet its stash less its deposits plus
   * its completed withdrawals; each maker's wallet its inventory moved by its settled trades.
   */
  async onChain(): Promise<void> {
    const chain = this.#stack.chain!;
    const tokens = Object.keys(TOKENS) as Token[];
    const custody = new Map<Token, bigint>(tokens.map((t) => [t, 0n]));
    const wallets = new Map<string, Map<Token, bigint>>();
    for (const actor of this.#actors) {
      const start = actor.role === 'taker' ? TAKER_STASH : MAKER_INVENTORY;
      wallets.set(actor.name, new Map(tokens.map((t) => [t, rawOf(t, start[t])])));
      for (const t of tokens) custody.set(t, custody.get(t)! + this.#model.expectedTotal(actor.name, t));
    }
    const move = (name: string, token: Token, delta: bigint) => wallets.get(name)!.set(token, wallets.get(name)!.get(token)! + delta);
    for (const d of this.#model.deposits.values()) move(d.user, d.token, -d.raw);
    for (const w of this.#model.withdrawals.values()) if (w.status === 'COMPLETED') move(w.user, w.token, units(w.token, w.amount));
    for (const rfq of this.#model.rfqs.values()) {
      // A perp sweep's legs trade at the venue (venuePositions), not on the chain.
      for (const leg of rfq.instrument.perp ? [] : settledLegs(rfq)) {
        const effect = this.#model.legEffect(rfq, leg);
        for (const [token, delta] of effect.maker) move(this.#model.makerOf(leg.quoteId), token, delta);
        custody.set(effect.fee.token, custody.get(effect.fee.token)! + effect.fee.raw);
      }
      if (!rfq.settled || rfq.instrument.perp) continue;
      const effect = this.#model.tradeEffect(rfq);
      const maker = this.#model.quotes.get(rfq.settled.quoteId)!.maker;
      for (const [token, delta] of effect.maker) move(maker, token, delta);
      custody.set(effect.fee.token, custody.get(effect.fee.token)! + effect.fee.raw);
    }
    const custodyWallet = await this.#custodyBalances();
    for (const t of tokens) {
      if (custodyWallet.get(t) !== custody.get(t)) this.#findings.add('custodyOnChain', `custody ${t}: ${custodyWallet.get(t)} on chain, the model ${custody.get(t)} (raw)`);
    }
    for (const actor of this.#actors) {
      for (const t of tokens) {
        const onChain = await actor.wallet!.tokenBalance(chain, t);
        if (onChain !== wallets.get(actor.name)!.get(t)) this.#findings.add('walletOnChain', `${actor.name} ${t}: ${onChain} on chain, the model ${wallets.get(actor.name)!.get(t)} (raw)`);
      }
    }
  }

  /**
   * At rest, the venue against the model: each taker's ETH position is the sum of its SETTLED perp
   * trades' fills (BUY long, SELL short), each maker's the opposite of the fills of the trades it
   * won; a FAILED or CANCELLED perp RFQ moved nothing.
   */
  async venuePositions(): Promise<void> {
    const venue = this.#stack.venue!;
    const expected = new Map<string, bigint>(this.#actors.map((a) => [a.name, 0n]));
    for (const rfq of this.#model.rfqs.values()) {
      // A perp sweep: each SETTLED leg's share of the taker's fill, against that leg's maker.
      for (const leg of rfq.instrument.perp ? settledLegs(rfq) : []) {
        const fill = signedSize(leg.perpFilledSize ?? '0') * (rfq.side === 'BUY' ? 1n : -1n);
        const maker = this.#model.quotes.get(leg.quoteId)!.maker;
        expected.set(rfq.taker, expected.get(rfq.taker)! + fill);
        expected.set(maker, expected.get(maker)! - fill);
      }
      if (!rfq.instrument.perp || !rfq.settled) continue;
      const fill = signedSize(rfq.settled.perpFilledSize ?? '0') * (rfq.side === 'BUY' ? 1n : -1n);
      const maker = this.#model.quotes.get(rfq.settled.quoteId)!.maker;
      expected.set(rfq.taker, expected.get(rfq.taker)! + fill);
      expected.set(maker, expected.get(maker)! - fill);
    }
    for (const actor of this.#actors) {
      const position = await venue.position(actor.address);
      if (signedSize(position) !== expected.get(actor.name)) this.#findings.add('venuePosition', `${actor.name}: ETH position ${position} at the venue, SETTLED perp trades ${formatSize(expected.get(actor.name)!)}`);
    }
  }

  async #custodyBalances(): Promise<Map<Token, bigint>> {
    const chain = this.#stack.chain!;
    const reader = this.#actors.find((a) => a.wallet)!.wallet!;
    const out = new Map<Token, bigint>();
    for (const t of Object.keys(TOKENS) as Token[]) {
      out.set(t, await reader.signer.publicClient.readContract({ address: chain.test.token(t), abi: testTokenAbi, functionName: 'balanceOf', args: [chain.custody] }));
    }
    return out;
  }

  /**
   * An acknowledged perp accept (202: parsed, not executed): its quote is the winner, or FAILED
   * (the taker's order refused, or the execution failed), or still SUBMITTED while the RFQ is
   * PENDING (the executor's checks running). Anything else lost the acceptance.
   */
  /**
   * An acknowledged perp sweep accept: its legs lead the RFQ's `fills` (refilled backups only
   * behind them), or, with no fills, every leg FAILED (the taker's order refused) or still
   * SUBMITTED while the RFQ is PENDING (the executor's checks running).
   */
  #perpSweepAccept(model: RfqModel, rfq: Rfq, quotes: Quote[]): void {
    const accepted = model.sweep!.acceptedLegs;
    if (!accepted) return;
    const fills = (rfq.fills ?? []).map((f) => f.quoteId);
    if (fills.length > 0) {
      if (JSON.stringify(fills.slice(0, accepted.length)) !== JSON.stringify(accepted)) this.#findings.add('ackedAccept', `${rfq.id}: the perp sweep accept answered legs ${accepted.join(', ')}, the RFQ fills ${fills.join(', ')} (${rfq.status})`);
      return;
    }
    const statuses = accepted.map((id) => quotes.find((q) => q.quoteId === id)?.status);
    const ok = statuses.every((s) => s === 'FAILED' || s === 'CANCELLED') || (rfq.status === 'PENDING' && statuses.every((s) => s === 'SUBMITTED' || s === 'FAILED' || s === 'CANCELLED'));
    if (!ok) this.#findings.add('ackedAccept', `${rfq.id}: perp sweep accept of ${accepted.join(', ')} acknowledged; quotes ${statuses.join(', ')}, RFQ ${rfq.status}`);
  }

  #perpAccept(model: RfqModel, rfq: Rfq, quotes: Quote[]): void {
    const status = quotes.find((q) => q.quoteId === model.acceptedQuote)?.status;
    const ok = status === 'FAILED' || status === 'SELECTED' || status === 'SETTLED' || (status === 'SUBMITTED' && rfq.status === 'PENDING');
    if (!ok) this.#findings.add('ackedAccept', `${rfq.id}: perp accept of ${model.acceptedQuote} acknowledged; quote ${status}, RFQ ${rfq.status}`);
  }

  #quoteStatus(quoteId: string, status: string): void {
    const qm = this.#model.quotes.get(quoteId);
    if (!qm) return;
    if (!mayFollow(quoteGraph, qm.status, status, 'reachable')) this.#findings.add('quoteTransition', `${quoteId}: ${qm.status} -> ${status}`);
    qm.status = status;
    if (qm.cancelAcked && status !== 'CANCELLED') this.#findings.add('ackedCancel', `${quoteId}: maker cancel acknowledged, status ${status}`);
  }

  /** BUY: the maker's leg plus the fee on it; SELL: the fee is on baseQty, the total is baseQty. */
  #takerTotal(rfq: RfqModel, q: Quote): void {
    const payToken: Token = rfq.side === 'BUY' ? rfq.instrument.quote : rfq.instrument.base;
    const leg = units(payToken, q.makerReceives.amount);
    const expected = rfq.side === 'BUY' ? leg + feeFloor(leg, rfq.instrument.feeTenthBp) : units(payToken, rfq.baseQty);
    if (units(payToken, q.takerTotal) !== expected) this.#findings.add('takerTotal', `${q.quoteId}: takerTotal ${q.takerTotal}, expected ${expected} raw ${payToken}`);
  }

  /** Better for the taker: a BUY pays less in total, a SELL receives more. */
  #autoWinner(rfq: RfqModel, winner: Quote, quotes: Quote[]): void {
    const value = (q: Quote) => (rfq.side === 'BUY' ? -units(rfq.instrument.quote, q.takerTotal) : units(rfq.instrument.quote, q.makerPays.amount));
    const limit = units(rfq.instrument.quote, rfq.quoteLimit!);
    const conforms = (q: Quote) => (rfq.side === 'BUY' ? -value(q) <= limit : value(q) >= limit);
    if (!conforms(winner)) this.#findings.add('autoSelect', `${rfq.id}: winner ${winner.quoteId} breaks the limit ${rfq.quoteLimit}`);
    for (const q of quotes) {
      if (q.status === 'NOT_SELECTED' && conforms(q) && value(q) > value(winner)) this.#findings.add('autoSelect', `${rfq.id}: ${q.quoteId} beats winner ${winner.quoteId}`);
    }
  }

  /**
   * A maker's own view of a cut quote (`selectedQty`): only on a SWEEP RFQ's selected quote, equal
   * to its base leg as the maker now sees it (what its authorisation carries).
   */
  #makerCut(maker: Actor, q: { quoteId: string; rfqId: string; status: string; side: string; makerPays: { amount: string }; makerReceives: { amount: string }; selectedQty?: string }): void {
    if (q.selectedQty === undefined) return;
    const rfq = this.#model.rfqs.get(q.rfqId);
    const legBase = q.side === 'BUY' ? q.makerPays.amount : q.makerReceives.amount;
    if (!rfq?.sweep || !SELECTED_LIKE.has(q.status) || !rfq.instrument || units(rfq.instrument.base, q.selectedQty) !== units(rfq.instrument.base, legBase)) {
      this.#findings.add('sweep', `${maker.name}: quote ${q.quoteId} (${q.status}) shows selectedQty ${q.selectedQty}, its base leg ${legBase}${rfq?.sweep ? '' : ' on an RFQ without fill SWEEP'}`);
    }
  }

  #withdrawal(taker: Actor, id: string, status: string): void {
    const w = this.#model.withdrawals.get(id);
    if (!w) return this.#findings.add('exactlyOnce', `${taker.name}: withdrawal ${id} never acknowledged`);
    if (!mayFollow(withdrawalGraph, w.status, status, 'reachable')) this.#findings.add('withdrawalTransition', `${id}: ${w.status} -> ${status}`);
    w.status = status;
  }

  #money(taker: Actor, reads: Map<string, RfqRead>, balances: Array<{ token: string; available: string; locked: string; total: string }>): void {
    const expectedLocked = new Map<Token, bigint>();
    const add = (token: Token, amount: bigint) => expectedLocked.set(token, (expectedLocked.get(token) ?? 0n) + amount);
    for (const rfq of this.#model.rfqs.values()) {
      if (rfq.taker !== taker.name) continue;
      const read = reads.get(rfq.id);
      const status = read?.rfq.status ?? rfq.status;
      const selected = read?.quotes.find((q) => q.status === 'SELECTED')?.takerTotal ?? null;
      if (status === 'QUOTED' && !read) continue;
      // A sweep: each leg still SELECTED holds its own lock; a leg that ended released or consumed it.
      const lock = rfq.sweep ? this.#model.sweepLock(rfq, status, (read?.quotes ?? []).filter((q) => q.status === 'SELECTED').map((q) => q.takerTotal)) : this.#model.rfqLock(rfq, status, selected);
      if (lock) add(lock.token, lock.amount);
    }
    for (const w of this.#model.withdrawals.values()) if (w.user === taker.name && WITHDRAWAL_LOCKING.has(w.status)) add(w.token, units(w.token, w.amount));
    for (const token of Object.keys(TOKENS) as Token[]) {
      const rows = balances.filter((b) => b.token === token);
      const sum = (field: 'available' | 'locked' | 'total') => rows.reduce((s, b) => s + units(token, b[field]), 0n);
      if (sum('total') !== this.#model.expectedTotal(taker.name, token)) this.#findings.add('modelTotal', `${taker.name} ${token}: total ${sum('total')}, acknowledged ${this.#model.expectedTotal(taker.name, token)} (raw)`);
      if (sum('locked') !== (expectedLocked.get(token) ?? 0n)) this.#findings.add('modelLocked', `${taker.name} ${token}: locked ${sum('locked')}, the tables say ${expectedLocked.get(token) ?? 0n} (raw)`);
      if (sum('available') + sum('locked') !== sum('total')) this.#findings.add('balanceShape', `${taker.name} ${token}: available + locked != total`);
    }
  }

  /**
   * A maker's own view: its quotes' statuses agree with the tables; a maker holds only what its
   * credited deposits put there (a promised delivery mined outside its window), compared on a read
   * between two identical deposit listings.
   */
  async #maker(maker: Actor): Promise<void> {
    const page = await attempt(() => maker.client.makerQuotes({ limit: 100 }), this.#findings, 'makerQuotes');
    if (page.ok) {
      for (const q of page.value.items) {
        const qm = this.#model.quotes.get(q.quoteId);
        if (!qm || qm.maker !== maker.name) this.#findings.add('exactlyOnce', `${maker.name}: quote ${q.quoteId} never acknowledged to it`);
        else {
          this.#quoteStatus(q.quoteId, q.status);
          this.#makerCut(maker, q);
        }
      }
    }
    // Each maker's WebSocket is told only of its own quotes (a sweep's other legs are other makers').
    for (const id of maker.watch.quoteIds) {
      if (this.#model.quotes.get(id)?.maker !== maker.name) this.#findings.add('wsOwnQuotes', `${maker.name}: a frame about quote ${id}, which is ${this.#model.quotes.get(id)?.maker ?? 'unknown'}'s`);
    }
    maker.watch.quoteIds.clear();
    const before = await this.#deposits(maker);
    const balances = await attempt(() => maker.client.balances(), this.#findings, 'balances');
    const after = await this.#deposits(maker);
    if (!before || !after) return;
    this.#deposited(maker, after);
    if (JSON.stringify(before.map((d) => d.status)) !== JSON.stringify(after.map((d) => d.status))) {
      this.unstableReads++;
      return;
    }
    if (balances.ok) {
      for (const b of balances.value.balances) {
        if (units(b.token as Token, b.total) !== this.#model.expectedTotal(maker.name, b.token as Token)) this.#findings.add('modelTotal', `${maker.name} ${b.token}: total ${b.total} without any acknowledged movement`);
      }
    }
  }
}
