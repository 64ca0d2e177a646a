/**
 * Races on one RFQ, fired concurrently over real HTTP and repeated with jitter so that both
 * interleavings happen: two accepts; accept vs auction close; re-quote vs accept (the version
 * protects the taker); taker cancel vs accept; maker cancel vs selection (taker accept and the
 * autoAccept close); the same idempotencyKey twice at once; and a burst of all of them across RFQs
 * sharing takers and makers (no deadlock, no 5xx). Each iteration asserts that the
 * outcome pair is one of the allowed ones, then checks the final state through GET (statuses,
 * exact available/locked balances), the outbox (one rfqStatus frame per transition) and the
 * ledger invariants.
 */
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { ApiError } from '../../../src/client/http.ts';
import { parseAmount } from '../../../src/domain/money/index.ts';
import type { RfqClient } from '../../../src/client/rfq-client.ts';
import type { Quote, Rfq, RfqStatus } from '../../../src/client/types.ts';
import { elapse, waitUntil } from '../../helpers/eventually.ts';

const randomInt = (max: number) => Math.floor(Math.random() * (max + 1));

/** What one side of a race got back: the 2xx value, or the refusal's status and code. */
type Outcome<T> = { ok: true; value: T } | { ok: false; status: number; code: string };

function outcomeOf<T>(settled: PromiseSettledResult<T>): Outcome<T> {
  if (settled.status === 'fulfilled') return { ok: true, value: settled.value };
  const error = settled.reason as unknown;
  if (!(error instanceof ApiError)) throw error;
  return { ok: false, status: error.status, code: error.code };
}

function describeOutcome(outcome: Outcome<unknown>): string {
  return outcome.ok ? 'ok' : `${outcome.status} ${outcome.code}`;
}

async function settle<T>(promise: Promise<T>): Promise<Outcome<T>> {
  const [settled] = await Promise.allSettled([promise]);
  return outcomeOf(settled!);
}

/** Runs `a` after `delays[0]` ms and `b` after `delays[1]` ms, concurrently. */
async function race<A, B>(a: () => Promise<A>, b: () => Promise<B>, delays: readonly [number, number]): Promise<[Outcome<A>, Outcome<B>]> {
  const [ra, rb] = await Promise.allSettled([elapse(delays[0], 'the race\'s first start').then(a), elapse(delays[1], 'the race\'s second start').then(b)]);
  return [outcomeOf(ra), outcomeOf(rb)];
}

/**
 * Repeats a race until at least `iterations` ran and every label in `expected` won at least once
 * (up to `maxIterations`). Most iterations start both sides within a few ms of each other, the
 * side alternating; when a label is still missing after `iterations`, the side that should win it
 * is given a growing head start. `run` returns the label of the interleaving that happened.
 */
async function repeatRace(
  expected: { a: string; b: string },
  run: (i: number, delays: [number, number]) => Promise<string>,
  options: { iterations?: number; maxIterations?: number; report?: (message: string) => void } = {},
): Promise<Map<string, number>> {
  const iterations = options.iterations ?? 12;
  const maxIterations = options.maxIterations ?? 40;
  const seen = new Map<string, number>();
  let ran = 0;
  for (let i = 0; ; i++) {
    const missing = [expected.a, expected.b].filter((label) => !seen.has(label));
    if (i >= iterations && missing.length === 0) break;
    if (i >= maxIterations) break;
    let delays: [number, number];
    if (i < iterations) {
      const lag = randomInt(i % 3 === 0 ? 0 : 6);
      delays = i % 2 === 0 ? [0, lag] : [lag, 0];
    } else {
      const headStart = 5 * (i - iterations + 1);
      delays = missing[0] === expected.a ? [0, headStart] : [headStart, 0];
    }
    const label = await run(i, delays);
    seen.set(label, (seen.get(label) ?? 0) + 1);
    ran = i + 1;
  }
  assert.ok(seen.has(expected.a) && seen.has(expected.b), `both interleavings expected, saw ${JSON.stringify([...seen])}`);
  options.report?.(`${ran} iterations (${Math.max(0, ran - iterations)} with a forced head start), outcomes ${JSON.stringify(Object.fromEntries(seen))}`);
  return seen;
}

/**
 * Races against the server's own deadline: `runs` iterations at once, iteration i firing its
 * request at `auctionEndsAt + offset`, offsets spread over -30 ms .. +30 ms (plus jitter), so the
 * requests land on both sides of the deadline and race the closer (the node's deadline timer and
 * its sweep). `run` sets up, waits for `at(auctionEndsAt)`, fires, checks, and returns its label.
 * A round that saw only one label is followed by one shifted toward the other (request latency
 * moves the boundary on a loaded machine), up to 3 rounds.
 */
/**
 * The window of an RFQ raced at its deadline. Its set-up (the RFQ, one or two quotes, a balance
 * read) must end before the auction does; at load 6-7 that took more than 1 s on CI, so
 * it gets 3 s. The iterations of a round run at once, so this adds about 2 s per round.
 */
const RACE_WINDOW_MS = 3000;

async function aroundDeadline(
  labels: { early: string; late: string },
  runs: number,
  run: (i: number, wait: (auctionEndsAt: number) => Promise<number>) => Promise<string>,
  report: (message: string) => void,
): Promise<void> {
  const tally = new Map<string, number>();
  let shift = 0;
  for (let round = 0; round < 3; round++) {
    await Promise.all(Array.from({ length: runs }, async (_, i) => {
      const offset = shift - 30 + Math.round((60 * i) / (runs - 1)) + randomInt(4) - 2;
      const wait = async (auctionEndsAt: number) => {
        await elapse(auctionEndsAt + offset - Date.now(), 'the request lands this offset from the deadline');
        return offset;
      };
      const label = await run(i, wait);
      tally.set(label, (tally.get(label) ?? 0) + 1);
    }));
    if (tally.has(labels.early) && tally.has(labels.late)) break;
    shift += tally.has(labels.early) ? 40 : -40;
  }
  report(`outcomes ${JSON.stringify(Object.fromEntries(tally))}`);
  assert.ok(tally.has(labels.early) && tally.has(labels.late), `both outcomes expected around the deadline, saw ${JSON.stringify([...tally])}`);
}

function balanceOf(balances: Array<{ token: string; available: string; locked: string }>, token: string) {
  return balances.find((b) => b.token === token) ?? { token, available: '0', locked: '0' };
}

async function expectBalance(client: RfqClient, token: string, available: string, locked: string, context: string): Promise<void> {
  const balance = balanceOf((await client.balances()).balances, token);
  assert.deepEqual([balance.available, balance.locked], [available, locked], `${token} available/locked (${context})`);
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  return waitUntil(read, done, 'condition', { timeoutMs, pollMs: 25 });
}

function statusesById(quotes: Quote[]): Record<string, string> {
  return Object.fromEntries(quotes.map((q) => [q.quoteId, q.status]));
}

for (const backend of backends()) {
  describe(`RFQ races [${backend}]`, () => {
    let h: Harness;
    let makers: Array<Awaited<ReturnType<Harness['newMaker']>>>;
    before(async () => {
      h = await startHarness(backend);
      makers = [await h.newMaker(), await h.newMaker(), await h.newMaker()];
    });
    after(async () => h.close());
    afterEach(async () => {
      const invariants = await h.admin.invariants();
      assert.deepEqual(invariants.violations, []);
      assert.equal(invariants.ok, true);
    });

    async function fundedTaker(usdc = '10000', eth = '0') {
      const taker = await h.newUser();
      await h.fund(taker.account.address, { USDC: usdc, ETH: eth });
      return taker.client;
    }

    /** A BUY quote on 1.5 ETH; the taker pays `price` plus the 0.25% fee. */
    function buyQuote(rfqId: string, price: string) {
      return { rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: price } };
    }
    const TOTAL: Record<string, string> = { '4400': '4411', '4500': '4511.25', '4600': '4611.5' };
    const AVAILABLE: Record<string, string> = { '4400': '5589', '4500': '5488.75', '4600': '5388.5' };

    /** The statuses of the RFQ's rfqStatus frames in the outbox, in commit (seq) order. */
    async function rfqStatusFrames(rfqId: string): Promise<RfqStatus[]> {
      const rows = await h.node.store.db
        .selectFrom('outbox')
        .select(['seq', 'frame'])
        .where('topic', '=', 'rfqStatus')
        .where(sql<string>`frame->>'id'`, '=', rfqId)
        .orderBy('seq')
        .execute();
      return rows.map((row) => (row.frame as unknown as Rfq).status);
    }

    async function liveLocks(rfqId: string): Promise<number> {
      const rows = await h.node.store.db.selectFrom('locks').select('lock_id').where('owner_kind', '=', 'rfq').where('owner_id', '=', rfqId).where('released_at', 'is', null).execute();
      return rows.length;
    }

    it('two accepts on one RFQ: exactly one wins, the other gets 409 RFQ_NOT_PENDING', async (t) => {
      await repeatRace({ a: 'first', b: 'second' }, async (i, delays) => {
        const taker = await fundedTaker();
        const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 15_000 });
        const q1 = await makers[0]!.client.submitQuote(buyQuote(rfqId, '4400'));
        const q2 = await makers[1]!.client.submitQuote(buyQuote(rfqId, '4500'));
        const [a, b] = await race(
          () => taker.accept(rfqId, { quoteId: q1.quoteId, expectedVersion: 1 }),
          () => taker.accept(rfqId, { quoteId: q2.quoteId, expectedVersion: 1 }),
          delays,
        );
        const pair = `${describeOutcome(a)} / ${describeOutcome(b)}`;
        const firstWon = a.ok && !b.ok && b.status === 409 && b.code === 'RFQ_NOT_PENDING';
        const secondWon = b.ok && !a.ok && a.status === 409 && a.code === 'RFQ_NOT_PENDING';
        assert.ok(firstWon || secondWon, `iteration ${i}: exactly one accept wins, got ${pair}`);
        const [winner, loser, price] = firstWon ? [q1, q2, '4400'] : [q2, q1, '4500'];

        const rfq = await taker.getRfq(rfqId);
        assert.equal(rfq.status, 'QUOTED');
        const quotes = statusesById((await taker.rfqQuotes(rfqId)).items);
        assert.deepEqual(quotes, { [winner.quoteId]: 'SELECTED', [loser.quoteId]: 'NOT_SELECTED' });
        await expectBalance(taker, 'USDC', AVAILABLE[price]!, TOTAL[price]!, `iteration ${i}`);
        assert.equal(await liveLocks(rfqId), 1);
        assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING', 'QUOTED']);
        // A retry of the winning accept replays its 202; the loser stays refused.
        assert.equal((await taker.accept(rfqId, { quoteId: winner.quoteId, expectedVersion: 1 })).status, 'QUOTED');
        const retry = await settle(taker.accept(rfqId, { quoteId: loser.quoteId, expectedVersion: 1 }));
        assert.equal(describeOutcome(retry), '409 RFQ_NOT_PENDING');
        return firstWon ? 'first' : 'second';
      }, { report: (message) => t.diagnostic(message) });
    });

    it('the same accept twice at once: both answer 202, one selection, one lock', async () => {
      for (let i = 0; i < 8; i++) {
        const taker = await fundedTaker();
        const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 15_000 });
        const q = await makers[0]!.client.submitQuote(buyQuote(rfqId, '4400'));
        const other = await makers[1]!.client.submitQuote(buyQuote(rfqId, '4500'));
        const accept = () => taker.accept(rfqId, { quoteId: q.quoteId, expectedVersion: 1 });
        const [a, b] = await race(accept, accept, [0, randomInt(3)]);
        assert.ok(a.ok && b.ok, `both replay the one accept, got ${describeOutcome(a)} / ${describeOutcome(b)}`);
        assert.deepEqual([a.value.status, b.value.status], ['QUOTED', 'QUOTED']);
        assert.deepEqual(statusesById((await taker.rfqQuotes(rfqId)).items), { [q.quoteId]: 'SELECTED', [other.quoteId]: 'NOT_SELECTED' });
        await expectBalance(taker, 'USDC', '5589', '4411', `iteration ${i}`);
        assert.equal(await liveLocks(rfqId), 1);
        assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING', 'QUOTED']);
      }
    });

    it('accept vs auction close (taker-driven): accepted and QUOTED, or 409 AUCTION_CLOSED and CANCELLED', async (t) => {
      await aroundDeadline({ early: 'accepted', late: 'closed' }, 16, async (i, wait) => {
        const taker = await fundedTaker();
        const { rfqId, auctionEndsAt } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: RACE_WINDOW_MS });
        const q = await makers[i % 3]!.client.submitQuote(buyQuote(rfqId, '4400'));
        const offset = await wait(auctionEndsAt);
        const accepted = await settle(taker.accept(rfqId, { quoteId: q.quoteId, expectedVersion: 1 }));
        const rfq = await until(() => taker.getRfq(rfqId), (r) => r.status !== 'PENDING');
        const quote = await taker.getQuote(q.quoteId);
        if (accepted.ok) {
          assert.equal(rfq.status, 'QUOTED', `offset ${offset}: accepted, so QUOTED`);
          assert.equal(quote.status, 'SELECTED');
          await expectBalance(taker, 'USDC', '5589', '4411', `offset ${offset}`);
          assert.equal(await liveLocks(rfqId), 1);
          assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING', 'QUOTED']);
          return 'accepted';
        }
        assert.deepEqual([accepted.status, accepted.code], [409, 'AUCTION_CLOSED'], `offset ${offset}: ${describeOutcome(accepted)}`);
        assert.equal(rfq.status, 'CANCELLED', `offset ${offset}: refused, so the close CANCELLED it`);
        assert.equal(rfq.failureReason, undefined);
        assert.equal(quote.status, 'EXPIRED');
        await expectBalance(taker, 'USDC', '10000', '0', `offset ${offset}`);
        assert.equal(await liveLocks(rfqId), 0);
        assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING', 'CANCELLED']);
        return 'closed';
      }, (message) => t.diagnostic(message));
    });

    it('accept vs auction close (autoAccept): the taker\'s pick or the best quote, selected exactly once', async (t) => {
      await aroundDeadline({ early: 'accepted', late: 'closed' }, 12, async (i, wait) => {
        const taker = await fundedTaker();
        const { rfqId, auctionEndsAt } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', autoAccept: true, windowMs: RACE_WINDOW_MS });
        const best = await makers[i % 2]!.client.submitQuote(buyQuote(rfqId, '4400'));
        const picked = await makers[2]!.client.submitQuote(buyQuote(rfqId, '4500'));
        await expectBalance(taker, 'USDC', '5000', '5000', 'locked at submission');
        const offset = await wait(auctionEndsAt);
        const accepted = await settle(taker.accept(rfqId, { quoteId: picked.quoteId, expectedVersion: 1 }));
        const rfq = await until(() => taker.getRfq(rfqId), (r) => r.status !== 'PENDING');
        assert.equal(rfq.status, 'QUOTED');
        const quotes = statusesById((await taker.rfqQuotes(rfqId)).items);
        assert.equal(await liveLocks(rfqId), 1);
        assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING', 'QUOTED']);
        if (accepted.ok) {
          assert.deepEqual(quotes, { [picked.quoteId]: 'SELECTED', [best.quoteId]: 'NOT_SELECTED' }, `offset ${offset}`);
          await expectBalance(taker, 'USDC', AVAILABLE['4500']!, TOTAL['4500']!, `offset ${offset}`);
          return 'accepted';
        }
        assert.deepEqual([accepted.status, accepted.code], [409, 'AUCTION_CLOSED'], `offset ${offset}: ${describeOutcome(accepted)}`);
        assert.deepEqual(quotes, { [best.quoteId]: 'SELECTED', [picked.quoteId]: 'NOT_SELECTED' }, `offset ${offset}`);
        await expectBalance(taker, 'USDC', AVAILABLE['4400']!, TOTAL['4400']!, `offset ${offset}`);
        return 'closed';
      }, (message) => t.diagnostic(message));
    });

    it('re-quote vs accept with expectedVersion: the taker never gets a price it did not see', async (t) => {
      await repeatRace({ a: 'accepted', b: 'requoted' }, async (i, delays) => {
        const taker = await fundedTaker();
        const maker = makers[i % 3]!;
        const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 15_000 });
        await maker.client.submitQuote(buyQuote(rfqId, '4400'));
        const [seen] = (await taker.rfqQuotes(rfqId)).items;
        assert.deepEqual([seen!.version, seen!.takerTotal], [1, '4411']);
        const [accept, requote] = await race(
          () => taker.accept(rfqId, { quoteId: seen!.quoteId, expectedVersion: seen!.version }),
          () => maker.client.submitQuote(buyQuote(rfqId, '4600')),
          delays,
        );
        const pair = `accept ${describeOutcome(accept)} / re-quote ${describeOutcome(requote)}`;
        if (accept.ok) {
          assert.ok(!requote.ok && requote.status === 409 && requote.code === 'RFQ_NOT_PENDING', `iteration ${i}: ${pair}`);
          const quote = await taker.getQuote(seen!.quoteId);
          assert.deepEqual([quote.status, quote.version, quote.makerReceives.amount, quote.takerTotal], ['SELECTED', 1, '4400', '4411'], 'the price the taker saw');
          assert.equal((await taker.getRfq(rfqId)).status, 'QUOTED');
          await expectBalance(taker, 'USDC', '5589', '4411', `iteration ${i}`);
          assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING', 'QUOTED']);
          return 'accepted';
        }
        assert.ok(requote.ok, `iteration ${i}: one side must win, got ${pair}`);
        assert.deepEqual([accept.status, accept.code], [409, 'QUOTE_VERSION_MISMATCH'], `iteration ${i}: ${pair}`);
        assert.deepEqual([requote.value.quoteId, requote.value.version], [seen!.quoteId, 2]);
        assert.equal((await taker.getRfq(rfqId)).status, 'PENDING');
        await expectBalance(taker, 'USDC', '10000', '0', `iteration ${i}, nothing locked`);
        // The taker reads again and accepts the new terms knowingly.
        const reread = await taker.getQuote(seen!.quoteId);
        assert.deepEqual([reread.status, reread.version, reread.takerTotal], ['SUBMITTED', 2, '4611.5']);
        await taker.accept(rfqId, { quoteId: reread.quoteId, expectedVersion: reread.version });
        await expectBalance(taker, 'USDC', '5388.5', '4611.5', `iteration ${i}, after accepting v2`);
        assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING', 'QUOTED']);
        return 'requoted';
      }, { report: (message) => t.diagnostic(message) });
    });

    it('taker cancel vs accept: exactly one of them takes effect, locks follow', async (t) => {
      await repeatRace({ a: 'accepted', b: 'cancelled' }, async (i, delays) => {
        const taker = await fundedTaker();
        const autoAccept = i % 2 === 0;
        const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', autoAccept, windowMs: 15_000 });
        const q = await makers[i % 3]!.client.submitQuote(buyQuote(rfqId, '4400'));
        await expectBalance(taker, 'USDC', autoAccept ? '5000' : '10000', autoAccept ? '5000' : '0', 'before the race');
        const [accept, cancel] = await race(
          () => taker.accept(rfqId, { quoteId: q.quoteId, expectedVersion: 1 }),
          () => taker.cancelRfq(rfqId),
          delays,
        );
        const pair = `accept ${describeOutcome(accept)} / cancel ${describeOutcome(cancel)}`;
        const rfq = await taker.getRfq(rfqId);
        const quote = await taker.getQuote(q.quoteId);
        if (accept.ok) {
          assert.ok(!cancel.ok && cancel.status === 409 && cancel.code === 'RFQ_NOT_PENDING', `iteration ${i}: ${pair}`);
          assert.deepEqual([rfq.status, quote.status], ['QUOTED', 'SELECTED']);
          await expectBalance(taker, 'USDC', '5589', '4411', `iteration ${i} (autoAccept ${autoAccept})`);
          assert.equal(await liveLocks(rfqId), 1);
          assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING', 'QUOTED']);
          return 'accepted';
        }
        assert.ok(cancel.ok, `iteration ${i}: one side must win, got ${pair}`);
        assert.deepEqual([accept.status, accept.code], [409, 'RFQ_NOT_PENDING'], `iteration ${i}: ${pair}`);
        assert.deepEqual([rfq.status, quote.status], ['CANCELLED', 'EXPIRED']);
        assert.ok(rfq.failureReason, 'a taker cancel carries failureReason');
        await expectBalance(taker, 'USDC', '10000', '0', `iteration ${i} (autoAccept ${autoAccept})`);
        assert.equal(await liveLocks(rfqId), 0);
        assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING', 'CANCELLED']);
        return 'cancelled';
      }, { report: (message) => t.diagnostic(message) });
    });

    it('maker cancel vs taker accept of the same quote: selected (cancel 409 QUOTE_NOT_OPEN) or cancelled (accept 409 QUOTE_NOT_ACCEPTABLE)', async (t) => {
      await repeatRace({ a: 'selected', b: 'cancelled' }, async (i, delays) => {
        const taker = await fundedTaker();
        const maker = makers[i % 3]!;
        const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 15_000 });
        const q = await maker.client.submitQuote(buyQuote(rfqId, '4400'));
        const [accept, cancel] = await race(
          () => taker.accept(rfqId, { quoteId: q.quoteId, expectedVersion: 1 }),
          () => maker.client.cancelQuote(q.quoteId),
          delays,
        );
        const pair = `accept ${describeOutcome(accept)} / cancel ${describeOutcome(cancel)}`;
        const rfq = await taker.getRfq(rfqId);
        const mine = (await maker.client.makerQuotes({ status: ['SELECTED', 'CANCELLED'] })).items.find((m) => m.quoteId === q.quoteId);
        if (accept.ok) {
          assert.ok(!cancel.ok && cancel.status === 409 && cancel.code === 'QUOTE_NOT_OPEN', `iteration ${i}: ${pair}`);
          assert.deepEqual([rfq.status, mine?.status], ['QUOTED', 'SELECTED']);
          assert.equal(mine?.settlementDeadline, rfq.settlementDeadline);
          await expectBalance(taker, 'USDC', '5589', '4411', `iteration ${i}`);
          assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING', 'QUOTED']);
          return 'selected';
        }
        assert.ok(cancel.ok, `iteration ${i}: one side must win, got ${pair}`);
        assert.deepEqual([accept.status, accept.code], [409, 'QUOTE_NOT_ACCEPTABLE'], `iteration ${i}: ${pair}`);
        assert.equal(cancel.value.status, 'CANCELLED');
        assert.deepEqual([rfq.status, mine?.status], ['PENDING', 'CANCELLED']);
        await expectBalance(taker, 'USDC', '10000', '0', `iteration ${i}`);
        assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING']);
        await taker.cancelRfq(rfqId);
        return 'cancelled';
      }, { report: (message) => t.diagnostic(message) });
    });

    it('maker cancel of the best quote vs the autoAccept close: cancelled (next quote or FAILED) or selected (cancel 409 QUOTE_NOT_OPEN)', async (t) => {
      await aroundDeadline({ early: 'cancelled', late: 'selected' }, 16, async (i, wait) => {
        const taker = await fundedTaker();
        const withBackup = i % 2 === 0;
        const { rfqId, auctionEndsAt } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', autoAccept: true, windowMs: RACE_WINDOW_MS });
        const maker = makers[i % 3]!;
        const best = await maker.client.submitQuote(buyQuote(rfqId, '4400'));
        const backup = withBackup ? await makers[(i + 1) % 3]!.client.submitQuote(buyQuote(rfqId, '4500')) : null;
        const offset = await wait(auctionEndsAt);
        const cancel = await settle(maker.client.cancelQuote(best.quoteId));
        const rfq = await until(() => taker.getRfq(rfqId), (r) => r.status !== 'PENDING');
        const quotes = statusesById((await taker.rfqQuotes(rfqId)).items);
        if (cancel.ok) {
          assert.equal(cancel.value.status, 'CANCELLED');
          if (backup) {
            assert.equal(rfq.status, 'QUOTED', `offset ${offset}: the backup quote wins`);
            assert.deepEqual(quotes, { [best.quoteId]: 'CANCELLED', [backup.quoteId]: 'SELECTED' });
            await expectBalance(taker, 'USDC', AVAILABLE['4500']!, TOTAL['4500']!, `offset ${offset}`);
            assert.equal(await liveLocks(rfqId), 1);
            assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING', 'QUOTED']);
          } else {
            assert.equal(rfq.status, 'FAILED', `offset ${offset}: nothing left to select`);
            assert.ok(rfq.failureReason);
            assert.deepEqual(quotes, { [best.quoteId]: 'CANCELLED' });
            await expectBalance(taker, 'USDC', '10000', '0', `offset ${offset}`);
            assert.equal(await liveLocks(rfqId), 0);
            assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING', 'FAILED']);
          }
          return 'cancelled';
        }
        assert.deepEqual([cancel.status, cancel.code], [409, 'QUOTE_NOT_OPEN'], `offset ${offset}: ${describeOutcome(cancel)}`);
        assert.equal(rfq.status, 'QUOTED');
        assert.deepEqual(quotes, { [best.quoteId]: 'SELECTED', ...(backup ? { [backup.quoteId]: 'NOT_SELECTED' } : {}) });
        await expectBalance(taker, 'USDC', AVAILABLE['4400']!, TOTAL['4400']!, `offset ${offset}`);
        assert.equal(await liveLocks(rfqId), 1);
        assert.deepEqual(await rfqStatusFrames(rfqId), ['PENDING', 'QUOTED']);
        return 'selected';
      }, (message) => t.diagnostic(message));
    });

    it('a burst of quotes, re-quotes, accepts and cancels across RFQs of the same takers and makers: every request answered, no deadlock', async () => {
      // Every use case bumps per-account event sequences of the taker and the makers in one
      // transaction; many at once on shared accounts must serialise, not deadlock (a deadlock is a 500).
      const takers = [await fundedTaker('100000'), await fundedTaker('100000')];
      const rfqs = await Promise.all(Array.from({ length: 24 }, (_, i) =>
        takers[i % 2]!.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 15_000 }).then((r) => ({ ...r, taker: takers[i % 2]! }))));
      const prices = ['4400', '4450', '4500'];
      const first = await Promise.all(rfqs.flatMap((rfq, i) => makers.map((maker, m) => maker.client.submitQuote(buyQuote(rfq.rfqId, prices[(m + i) % 3]!)))));
      assert.equal(first.length, 72);
      const results = await Promise.allSettled(rfqs.flatMap((rfq, i) => [
        ...makers.map((maker, m) => maker.client.submitQuote(buyQuote(rfq.rfqId, prices[(m + i + 1) % 3]!))),
        i % 4 === 0 ? rfq.taker.cancelRfq(rfq.rfqId) : Promise.resolve(),
        i % 4 === 1 ? makers[i % 3]!.client.cancelQuote(first[i * 3 + (i % 3)]!.quoteId) : Promise.resolve(),
        i % 4 === 2 ? rfq.taker.rfqQuotes(rfq.rfqId).then((page) => rfq.taker.accept(rfq.rfqId, { quoteId: page.items[0]!.quoteId })) : Promise.resolve(),
      ]));
      const unexpected = results.map(outcomeOf).filter((o) => !o.ok && o.status !== 409);
      assert.deepEqual(unexpected, [], 'only 409s (lost races), never a 5xx');
      for (const taker of takers) {
        const quoted = (await taker.listRfqs({ status: 'QUOTED' })).items;
        let locked = 0n;
        for (const rfq of quoted) {
          const [winner] = (await taker.rfqQuotes(rfq.id, { status: 'SELECTED' })).items;
          locked += parseAmount(winner!.takerTotal, 6, { field: 'takerTotal' });
        }
        const usdc = balanceOf((await taker.balances()).balances, 'USDC');
        assert.equal(BigInt(Math.round(Number(usdc.locked) * 1e6)), locked, 'locked is the sum of the winners');
        for (const rfq of (await taker.listRfqs({ status: 'PENDING' })).items) await taker.cancelRfq(rfq.id);
      }
    });

    it('the same idempotencyKey twice at once: one RFQ, one lock, both answers identical', async () => {
      for (let i = 0; i < 10; i++) {
        const taker = await fundedTaker('0', '10');
        const idempotencyKey = randomUUID();
        const body = { instrumentId: 'ETH-USDC-SPOT', side: 'SELL' as const, baseQty: '2', autoAccept: true, windowMs: 15_000, idempotencyKey };
        const [a, b] = await race(() => taker.createRfq(body), () => taker.createRfq(body), [0, randomInt(i % 2 === 0 ? 0 : 3)]);
        assert.ok(a.ok && b.ok, `both are answered 202, got ${describeOutcome(a)} / ${describeOutcome(b)}`);
        assert.deepEqual(b.value, a.value);
        const listed = await taker.listRfqs();
        assert.deepEqual(listed.items.map((r) => r.id), [a.value.rfqId], 'exactly one RFQ');
        await expectBalance(taker, 'ETH', '8', '2', `iteration ${i}: locked once`);
        assert.equal(await liveLocks(a.value.rfqId), 1);
        assert.deepEqual(await rfqStatusFrames(a.value.rfqId), ['PENDING']);
        const openFrames = await h.node.store.db.selectFrom('outbox').select('seq').where('topic', '=', 'openRfqs').where(sql<string>`frame->>'id'`, '=', a.value.rfqId).execute();
        assert.equal(openFrames.length, 1, 'makers are told once');
        await taker.cancelRfq(a.value.rfqId);
        await expectBalance(taker, 'ETH', '10', '0', `iteration ${i}: released`);
      }
    });

    it('the same idempotencyKey with two different bodies at once: one wins, the other 409 IDEMPOTENCY_KEY_REUSED', async (t) => {
      await repeatRace({ a: 'two', b: 'three' }, async (i, delays) => {
        const taker = await fundedTaker('0', '10');
        const idempotencyKey = randomUUID();
        const body = (baseQty: string) => ({ instrumentId: 'ETH-USDC-SPOT', side: 'SELL' as const, baseQty, autoAccept: true, windowMs: 15_000, idempotencyKey });
        const [a, b] = await race(() => taker.createRfq(body('2')), () => taker.createRfq(body('3')), delays);
        const pair = `${describeOutcome(a)} / ${describeOutcome(b)}`;
        const twoWon = a.ok && !b.ok && b.status === 409 && b.code === 'IDEMPOTENCY_KEY_REUSED';
        const threeWon = b.ok && !a.ok && a.status === 409 && a.code === 'IDEMPOTENCY_KEY_REUSED';
        assert.ok(twoWon || threeWon, `iteration ${i}: ${pair}`);
        const created = (twoWon ? a : b) as { ok: true; value: { rfqId: string } };
        const listed = await taker.listRfqs();
        assert.deepEqual(listed.items.map((r) => [r.id, r.baseQty]), [[created.value.rfqId, twoWon ? '2' : '3']]);
        await expectBalance(taker, 'ETH', twoWon ? '8' : '7', twoWon ? '2' : '3', `iteration ${i}`);
        await taker.cancelRfq(created.value.rfqId);
        await expectBalance(taker, 'ETH', '10', '0', `iteration ${i}: released`);
        return twoWon ? 'two' : 'three';
      }, { report: (message) => t.diagnostic(message) });
    });
  });
}
