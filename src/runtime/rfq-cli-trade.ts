/**
 * The taker CLI's trading flows: request a quote and take the best one (or let the auction
 * choose with autoAccept), accept a chosen quote of a live RFQ, and follow an RFQ until it is
 * SETTLED, FAILED or CANCELLED. Progress goes to `say` line by line; the result is returned.
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../client/http.ts';
import type { RfqClient } from '../client/rfq-client.ts';
import type { PerpTaker } from '../client/perp-taker.ts';
import { SweepShortOfMinimum } from '../client/perp-sweep.ts';
import { formatAmount, parseAmount } from '../domain/money/index.ts';
import { makerOrderPrice } from '../domain/perp/sweep.ts';
import { fractionDigits } from '../domain/perp/venue-decimals.ts';
import { bestQuote } from '../client/best-quote.ts';
import { RfqWatch } from '../client/rfq-watch.ts';
import type { Quote, Rfq, Side } from '../client/types.ts';
import { quoteLine, statusLine } from './rfq-cli-format.ts';

export interface TradeResult {
  rfq: Rfq;
  /** Latest version of every quote seen. */
  quotes: Quote[];
  /** The quote accepted at its version; on a sweep, the first of the quotes selected, all of them in `quoteIds`. */
  accepted: { quoteId: string; version: number; quoteIds?: string[] } | null;
  transport: 'websocket' | 'rest';
  /** Perp, once SETTLED: the executed quote's fill (the RFQ itself carries none). */
  perpFill?: PerpFill;
  /** Perp SWEEP, once SETTLED: each settled leg's fill, read from its quote, and their sum. */
  perpSweep?: PerpSweepFill;
  /** The service's refusals of this CLI's accepts, in order (absent when none): why nothing was taken. */
  refusals?: AcceptRefusal[];
}

export interface AcceptRefusal {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface PerpFill {
  quoteId: string;
  perpFilledSize: string | null;
  perpFillAvgPx: string | null;
}

export interface PerpSweepFill {
  /** The sum of the legs' `perpFilledSize`: what the taker's one IOC filled; null when a leg's was never read. */
  filledSize: string | null;
  /** One per SETTLED leg, in rank order. */
  legs: PerpFill[];
}

export class FollowTimeout extends Error {
  override readonly name = 'FollowTimeout';
  readonly rfq: Rfq | undefined;
  constructor(message: string, rfq: Rfq | undefined) {
    super(message);
    this.rfq = rfq;
  }
}

export interface TradeRequest {
  side: Side;
  baseQty: string;
  instrumentId: string;
  quoteLimit?: string;
  autoAccept: boolean;
  windowMs?: number;
  /** Accept this long after submission instead of just before the auction ends. */
  acceptAfterMs?: number;
  /** Aliases of the disclosed makers that alone see the RFQ. */
  makers?: string[];
  /** Aliases of disclosed makers the RFQ must not reach. */
  excludeMakers?: string[];
  /** A SWEEP RFQ (several makers may fill it), filling at least `minFillQty` (default: all of it). */
  sweep?: { minFillQty?: string };
  /** Watch and follow, never accept (another process or `rfq accept` may). */
  noAccept: boolean;
  webSocket: boolean;
  /** Overrides how long to follow after the settlement deadline. */
  timeoutMs?: number;
  /** A perp instrument: signs the taker's venue order for the quote it accepts. */
  perp?: PerpTaker;
}

/** Accept attempts before giving up on a moving book (each re-reads the quotes). */
const MAX_ACCEPT_ATTEMPTS = 5;
/** A quote whose window ends sooner than this is passed over: the accept would land too late. */
const ACCEPT_HEADROOM_MS = 200;
/** Settlement is declared failed only after a block past the deadline is final; wait a bit longer. */
const FOLLOW_GRACE_MS = 30_000;
/** How long before the auction ends the CLI picks the best quote, at most. */
const DECIDE_MARGIN_MS = 1000;

/** Server clock minus local clock, so deadlines the server states can be waited for locally. */
export async function serverOffsetMs(client: RfqClient): Promise<number> {
  const sentAt = Date.now();
  const { serverTime } = await client.time();
  return serverTime - Math.round((sentAt + Date.now()) / 2);
}

function announce(watch: RfqWatch, side: Side, say: (line: string) => void, quoteLimit: () => string | undefined, now: () => number): void {
  watch.on('quote', (quote) => {
    const best = bestQuote(watch.quotes(), side, { now: now(), quoteLimit: quoteLimit() });
    say(quoteLine(quote, best?.quoteId === quote.quoteId));
  });
  watch.on('status', (rfq) => say(statusLine(rfq)));
  watch.on('transport', (transport) => {
    if (transport === 'reconnecting') say('WebSocket lost; reconnecting (polling REST meanwhile)');
    else if (transport === 'reconnected') say('WebSocket reconnected');
    else if (transport === 'rest') say('WebSocket unavailable; polling REST');
  });
}

export async function trade(client: RfqClient, tradeRequest: TradeRequest, say: (line: string) => void): Promise<TradeResult> {
  let request = tradeRequest;
  const offset = await serverOffsetMs(client);
  const now = () => Date.now() + offset;
  const watch = new RfqWatch(client, { webSocket: request.webSocket });
  try {
    announce(watch, request.side, say, () => request.quoteLimit, now);
    if (request.perp && request.quoteLimit === undefined && !request.autoAccept) {
      // Required on a perp: derive one from the venue's book (1 % past the touch) and say so.
      request = { ...request, quoteLimit: await request.perp.defaultLimit(request.instrumentId, request.side, request.baseQty) };
      say(`no --limit: using ${request.quoteLimit} USDC (the venue's ${request.side === 'BUY' ? 'best ask + 1 %' : 'best bid - 1 %'} times ${request.baseQty})`);
    }
    await watch.start();
    const created = await client.createRfq({
      instrumentId: request.instrumentId,
      side: request.side,
      baseQty: request.baseQty,
      ...(request.quoteLimit !== undefined ? { quoteLimit: request.quoteLimit } : {}),
      ...(request.autoAccept ? { autoAccept: true } : {}),
      ...(request.windowMs !== undefined ? { windowMs: request.windowMs } : {}),
      ...(request.makers !== undefined ? { makers: request.makers } : {}),
      ...(request.excludeMakers !== undefined ? { excludeMakers: request.excludeMakers } : {}),
      ...(request.sweep ? { fill: 'SWEEP' as const, ...(request.sweep.minFillQty !== undefined ? { minFillQty: request.sweep.minFillQty } : {}) } : {}),
      // Fresh per request: a retried submit of this same request replays instead of duplicating.
      idempotencyKey: randomUUID(),
    });
    const secondsLeft = ((created.auctionEndsAt - now()) / 1000).toFixed(1);
    const sweep = request.sweep ? `, sweep${request.sweep.minFillQty !== undefined ? ` (at least ${request.sweep.minFillQty})` : ''}` : '';
    say(`rfq ${created.rfqId}: ${request.side} ${request.baseQty} ${request.instrumentId}${request.quoteLimit ? `, limit ${request.quoteLimit}` : ''}${sweep}${request.autoAccept ? ', autoAccept' : ''}; auction ends in ${secondsLeft}s`);
    await watch.track(created.rfqId);
    let accepted: TradeResult['accepted'] = null;
    const refusals: AcceptRefusal[] = [];
    if (!request.autoAccept && !request.noAccept) {
      const endsAtLocal = created.auctionEndsAt - offset;
      const decideAt = request.acceptAfterMs !== undefined
        ? Date.now() + request.acceptAfterMs
        : endsAtLocal - Math.min(DECIDE_MARGIN_MS, Math.floor((endsAtLocal - Date.now()) / 4));
      await watch.until(() => watch.rfq !== undefined && watch.rfq.status !== 'PENDING', decideAt);
      accepted = request.sweep
        ? request.perp
          ? await acceptPerpSweep(request.perp, watch, endsAtLocal, now, say, refusals)
          : await acceptSweep(client, watch, created.rfqId, endsAtLocal, say, refusals)
        : await acceptBest(client, watch, created.rfqId, request.side, request.quoteLimit, now, say, request.perp, refusals);
    }
    const rfq = await follow(watch, offset, request.timeoutMs);
    return {
      rfq, quotes: watch.quotes(), accepted, transport: watch.transport,
      ...(await perpFillOf(client, rfq, accepted, request.perp)),
      ...(refusals.length > 0 ? { refusals } : {}),
    };
  } finally {
    watch.close();
  }
}

/** Accepts `quoteId` (at `version`, else its current one) or, without one, the best quote; then follows. */
export async function acceptAndFollow(
  client: RfqClient,
  rfqId: string,
  choice: { quoteId?: string; version?: number; webSocket: boolean; timeoutMs?: number; perp?: PerpTaker },
  say: (line: string) => void,
): Promise<TradeResult> {
  const offset = await serverOffsetMs(client);
  const now = () => Date.now() + offset;
  const watch = new RfqWatch(client, { webSocket: choice.webSocket });
  try {
    await watch.start();
    await watch.track(rfqId);
    const rfq = watch.rfq!;
    announce(watch, rfq.side, say, () => rfq.quoteLimit ?? undefined, now);
    let accepted: TradeResult['accepted'];
    if (choice.quoteId === undefined) {
      accepted = await acceptBest(client, watch, rfqId, rfq.side, rfq.quoteLimit ?? undefined, now, say, choice.perp);
      if (!accepted) throw new ApiError(409, 'NO_ACCEPTABLE_QUOTE', `no acceptable quote on ${rfqId}`, undefined, new Headers());
    } else {
      const version = choice.version ?? (watch.quotes().find((q) => q.quoteId === choice.quoteId) ?? (await client.getQuote(choice.quoteId))).version;
      say(`accepting ${choice.quoteId} v${version}`);
      if (choice.perp) {
        const quote = await client.getQuote(choice.quoteId);
        if ((await acceptPerp(client, choice.perp, rfq, quote, version, say)) === 'refused') throw new ApiError(409, 'QUOTE_NOT_ACCEPTABLE', `the service refused the signed order for ${choice.quoteId} (quote FAILED; the RFQ is still PENDING)`, undefined, new Headers());
      } else {
        await client.accept(rfqId, { quoteId: choice.quoteId, expectedVersion: version });
      }
      accepted = { quoteId: choice.quoteId, version };
    }
    const final = await follow(watch, offset, choice.timeoutMs);
    return { rfq: final, quotes: watch.quotes(), accepted, transport: watch.transport, ...(await perpFillOf(client, final, accepted, choice.perp)) };
  } finally {
    watch.close();
  }
}

/** Follows an RFQ (printing quotes and status changes) until it is terminal. */
export async function followRfq(client: RfqClient, rfqId: string, options: { webSocket: boolean; timeoutMs?: number }, say: (line: string) => void): Promise<TradeResult> {
  const offset = await serverOffsetMs(client);
  const watch = new RfqWatch(client, { webSocket: options.webSocket });
  try {
    await watch.start();
    await watch.track(rfqId);
    say(statusLine(watch.rfq!));
    watch.on('status', (rfq) => say(statusLine(rfq)));
    const rfq = await follow(watch, offset, options.timeoutMs);
    return { rfq, quotes: watch.quotes(), accepted: null, transport: watch.transport };
  } finally {
    watch.close();
  }
}

async function acceptBest(
  client: RfqClient, watch: RfqWatch, rfqId: string, side: Side, quoteLimit: string | undefined, now: () => number, say: (line: string) => void, perp?: PerpTaker,
  refusals: AcceptRefusal[] = [],
): Promise<TradeResult['accepted']> {
  const refused = new Set<string>();
  for (let attempt = 1; attempt <= MAX_ACCEPT_ATTEMPTS; attempt++) {
    if (watch.rfq?.status !== 'PENDING') return null;
    const best = bestQuote(watch.quotes().filter((q) => !refused.has(q.quoteId)), side, { now: now(), quoteLimit, minRemainingMs: ACCEPT_HEADROOM_MS });
    if (!best) {
      say('no acceptable quote; not accepting');
      return null;
    }
    say(`accepting ${best.quoteId} v${best.version}`);
    try {
      if (perp) {
        if ((await acceptPerp(client, perp, watch.rfq, best, best.version, say)) === 'refused') {
          refused.add(best.quoteId);
          continue;
        }
      } else {
        await client.accept(rfqId, { quoteId: best.quoteId, expectedVersion: best.version });
      }
      return { quoteId: best.quoteId, version: best.version };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      refusals.push(refusalOf(error));
      if (error.code === 'QUOTE_VERSION_MISMATCH' || error.code === 'QUOTE_NOT_ACCEPTABLE') {
        // The book moved under us (re-price, maker window, cancel): read it again and choose again.
        say(`${error.code}: re-reading quotes`);
        await watch.refresh();
        continue;
      }
      if (tooLateToAccept(error, say)) return null;
      throw error;
    }
  }
  say(`gave up accepting after ${MAX_ACCEPT_ATTEMPTS} attempts`);
  return null;
}

/**
 * Accepts a SWEEP RFQ as the service ranks its quotes (`{ sweep: true }`). A selection short of
 * `minFillQty` is refused with nothing changed: the CLI then waits for the quotes to change (a new
 * quote, a re-price, a status) and tries again, until the auction is about to end.
 */
async function acceptSweep(
  client: RfqClient, watch: RfqWatch, rfqId: string, endsAtLocal: number, say: (line: string) => void, refusals: AcceptRefusal[],
): Promise<TradeResult['accepted']> {
  for (let attempt = 1; attempt <= MAX_ACCEPT_ATTEMPTS; attempt++) {
    if (watch.rfq?.status !== 'PENDING') return null;
    say('accepting the sweep');
    const seen = quotesSeen(watch);
    try {
      const taken = await client.acceptSweep(rfqId, { sweep: true });
      say(`selected ${taken.quoteIds.length} quote${taken.quoteIds.length === 1 ? '' : 's'}: ${taken.quoteIds.join(', ')}`);
      const first = watch.quotes().find((q) => q.quoteId === taken.quoteId);
      return { quoteId: taken.quoteId, version: first?.version ?? 1, quoteIds: taken.quoteIds };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      refusals.push(refusalOf(error));
      if (error.code === 'QUOTE_NOT_ACCEPTABLE' || error.code === 'QUOTE_VERSION_MISMATCH') {
        say(`${error.code}: ${error.message}; waiting for the quotes to change`);
        await watch.refresh();
        // Trying again on the same quotes would get the same answer: wait for them to move.
        const changed = await watch.until(() => quotesSeen(watch) !== seen || watch.rfq?.status !== 'PENDING', endsAtLocal - ACCEPT_HEADROOM_MS);
        if (!changed) {
          say('the quotes did not change before the auction ends; not accepting');
          return null;
        }
        continue;
      }
      if (tooLateToAccept(error, say)) return null;
      throw error;
    }
  }
  say(`gave up accepting after ${MAX_ACCEPT_ATTEMPTS} attempts`);
  return null;
}

/**
 * Accepts a perp SWEEP RFQ: the client ranks the quotes it sees (the service ranks the quotes an
 * accept names the same way), signs one IOC over the selection and names the selected quotes at
 * the versions it ranked. Short of `minFillQty` (nothing sent), or refused because a named quote
 * moved: wait for the quotes to change and try again, until the auction is about to end.
 */
async function acceptPerpSweep(
  perp: PerpTaker, watch: RfqWatch, endsAtLocal: number, now: () => number, say: (line: string) => void, refusals: AcceptRefusal[],
): Promise<TradeResult['accepted']> {
  for (let attempt = 1; attempt <= MAX_ACCEPT_ATTEMPTS; attempt++) {
    const rfq = watch.rfq;
    if (rfq?.status !== 'PENDING') return null;
    say('accepting the sweep');
    const seen = quotesSeen(watch);
    try {
      const { plan, order, accepted, approvedBuilderFeeTenthBp } = await perp.acceptSweep(rfq, watch.quotes(), { now: now() });
      if (approvedBuilderFeeTenthBp !== null) say(`approved a builder fee of ${approvedBuilderFeeTenthBp} tenths of a bp for ${perp.builderAddress} at the venue`);
      const placed = (order.action['orders'] as Array<{ c: string }>)[0]!;
      say(`signed ${rfq.side === 'BUY' ? 'buy' : 'sell'} IOC ${plan.s} @ ${plan.p} over ${plan.quotes.length} quote${plan.quotes.length === 1 ? '' : 's'} (cloid ${placed.c}, nonce ${order.nonce})`);
      for (const leg of plan.selection.legs) {
        const whole = rfq.side === 'BUY' ? leg.quote.wire.makerPays.amount : leg.quote.wire.makerReceives.amount;
        const price = makerOrderPrice(rfq.side, leg.quote, plan.decimals) ?? '?';
        say(`  leg ${leg.quote.quoteId} v${leg.quote.wire.version}: ${formatAmount(leg.baseQty, plan.decimals.baseDecimals)} @ ${price}${leg.cut ? ` (cut from ${whole})` : ''}`);
      }
      say(`selected ${accepted.quoteIds.length} quote${accepted.quoteIds.length === 1 ? '' : 's'}: ${accepted.quoteIds.join(', ')}`);
      return { quoteId: accepted.quoteId, version: plan.quotes[0]!.expectedVersion, quoteIds: accepted.quoteIds };
    } catch (error) {
      if (error instanceof SweepShortOfMinimum) {
        say(`${error.message}; waiting for the quotes to change`);
      } else if (error instanceof ApiError && (error.code === 'QUOTE_NOT_ACCEPTABLE' || error.code === 'QUOTE_VERSION_MISMATCH')) {
        refusals.push(refusalOf(error));
        say(`${error.code}: ${error.message}; waiting for the quotes to change`);
        await watch.refresh();
      } else if (error instanceof ApiError) {
        refusals.push(refusalOf(error));
        if (tooLateToAccept(error, say)) return null;
        throw error;
      } else {
        throw error;
      }
      // Ranking the same quotes again would give the same answer: wait for them to move.
      const changed = await watch.until(() => quotesSeen(watch) !== seen || watch.rfq?.status !== 'PENDING', endsAtLocal - ACCEPT_HEADROOM_MS);
      if (!changed) {
        say('the quotes did not change before the auction ends; not accepting');
        return null;
      }
    }
  }
  say(`gave up accepting after ${MAX_ACCEPT_ATTEMPTS} attempts`);
  return null;
}

/** The auction ended or the RFQ moved on: an accept cannot succeed any more. */
function tooLateToAccept(error: ApiError, say: (line: string) => void): boolean {
  if (error.code !== 'AUCTION_CLOSED' && error.code !== 'RFQ_NOT_PENDING') return false;
  say(`${error.code}: too late to accept`);
  return true;
}

/** Every quote seen, at its version and status: changes when any of them does. */
function quotesSeen(watch: RfqWatch): string {
  return watch.quotes().map((q) => `${q.quoteId}@${q.version}:${q.status}`).sort().join(',');
}

function refusalOf(error: ApiError): AcceptRefusal {
  return { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
}

/** How often a perp accept's outcome is read while the service checks the order. */
const PERP_CHECK_POLL_MS = 100;

/**
 * A perp accept: builder fee, signed order, 202; then the service checks the order with no
 * reason given. Refused: the quote turns FAILED while the RFQ stays PENDING ('refused', another
 * quote may be accepted); otherwise the RFQ moves to QUOTED or ends ('accepted').
 */
async function acceptPerp(client: RfqClient, perp: PerpTaker, rfq: Rfq, quote: Quote, version: number, say: (line: string) => void): Promise<'accepted' | 'refused'> {
  const approved = await perp.ensureBuilderFee(quote.builderFeeTenthBp);
  if (approved !== null) say(`approved a builder fee of ${approved} tenths of a bp for ${perp.builderAddress} at the venue`);
  const order = await perp.order(rfq, quote);
  const placed = (order.action['orders'] as Array<{ p: string; s: string; c: string }>)[0]!;
  say(`signed ${rfq.side === 'BUY' ? 'buy' : 'sell'} IOC ${placed.s} @ ${placed.p} (cloid ${placed.c}, nonce ${order.nonce})`);
  await client.accept(rfq.id, { quoteId: quote.quoteId, expectedVersion: version, perpTakerOrder: order });
  for (;;) {
    const [current, chosen] = await Promise.all([client.getRfq(rfq.id), client.getQuote(quote.quoteId)]);
    if (current.status !== 'PENDING') return 'accepted';
    if (chosen.status === 'FAILED') {
      say(`the service refused the signed order for ${quote.quoteId}; the RFQ is still PENDING`);
      return 'refused';
    }
    if (Date.now() > current.auctionEndsAt + 5_000) return 'accepted';
    await new Promise((resolve) => setTimeout(resolve, PERP_CHECK_POLL_MS));
  }
}

/** The executed quote's fill fields (each leg's on a sweep); absent ones are read again (spec: "read again if absent"). */
async function perpFillOf(client: RfqClient, rfq: Rfq, accepted: TradeResult['accepted'], perp: PerpTaker | undefined): Promise<{ perpFill?: PerpFill; perpSweep?: PerpSweepFill }> {
  if (!perp || rfq.status !== 'SETTLED') return {};
  if (rfq.fills) {
    const legs = await Promise.all(rfq.fills.filter((f) => f.status === 'SETTLED').map((f) => quoteFill(client, f.quoteId)));
    return { perpSweep: { filledSize: sumSizes(legs.map((l) => l.perpFilledSize)), legs } };
  }
  const quoteId = rfq.selectedQuoteId ?? accepted?.quoteId;
  if (!quoteId) return {};
  return { perpFill: await quoteFill(client, quoteId) };
}

async function quoteFill(client: RfqClient, quoteId: string): Promise<PerpFill> {
  let quote = await client.getQuote(quoteId);
  for (let attempt = 0; attempt < 20 && quote.perpFilledSize == null; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    quote = await client.getQuote(quoteId);
  }
  return { quoteId, perpFilledSize: quote.perpFilledSize ?? null, perpFillAvgPx: quote.perpFillAvgPx ?? null };
}

/** The sum of venue sizes (decimal strings), exact; null when any of them was never read. */
function sumSizes(sizes: Array<string | null>): string | null {
  if (sizes.some((size) => size === null)) return null;
  const known = sizes as string[];
  const decimals = Math.max(0, ...known.map(fractionDigits));
  return formatAmount(known.reduce((sum, size) => sum + parseAmount(size, decimals, { field: 'perpFilledSize' }), 0n), decimals);
}

async function follow(watch: RfqWatch, offset: number, timeoutMs: number | undefined): Promise<Rfq> {
  const rfq = watch.rfq!;
  const deadlineLocal = Math.max(rfq.settlementDeadline * 1000, rfq.auctionEndsAt) - offset;
  const waitMs = timeoutMs ?? Math.max(0, deadlineLocal - Date.now()) + FOLLOW_GRACE_MS;
  const final = await watch.terminal(waitMs);
  if (!final) throw new FollowTimeout(`${rfq.id} not terminal after ${Math.round(waitMs / 1000)} s (last status ${watch.rfq?.status})`, watch.rfq);
  return final;
}
