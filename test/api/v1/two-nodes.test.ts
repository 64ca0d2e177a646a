/**
 * Two (and three) service nodes on one PostgreSQL database (DESIGN.md section 8): RFQs are
 * created through node A, quoted through node B, accepted through either, and every auction is
 * closed exactly once whichever node's timer or sweep gets there first: each RFQ ends in exactly
 * one QUOTED/FAILED/CANCELLED state, quote statuses agree with it, a QUOTED RFQ holds exactly one
 * live lock, the outbox holds exactly one rfqStatus frame per transition, and the ledger
 * invariants hold. A node stopped right after creating an RFQ leaves its auction to the other
 * node's sweep.
 *
 * PostgreSQL only: PGlite is an in-process database that a second node cannot open.
 */
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import type { Rfq, RfqStatus } from '../../../src/client/types.ts';
import type { Store } from '../../../src/store/database.ts';
import { waitUntil } from '../../helpers/eventually.ts';

/** A USDC decimal string (6 decimals) as micro-units, so sums are exact. */
function micro(amount: string): bigint {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
}

interface Close { node: string; rfqId: string; outcome: string; auctionEndsAt: number; closedAt: number }

/** Records every auction a node's worker closes (the `auctionCloses` observer of the node). */
function observeCloses(harness: Harness, node: string, into: Close[]): void {
  harness.node.context.auctionCloses = (closed) => into.push({ node, ...closed });
}

/** The statuses of the RFQ's rfqStatus frames in the outbox, in seq order. */
async function rfqStatusFrames(store: Store, rfqId: string): Promise<RfqStatus[]> {
  const rows = await store.db.selectFrom('outbox').select(['seq', 'frame']).where('topic', '=', 'rfqStatus').where(sql<string>`frame->>'id'`, '=', rfqId).orderBy('seq').execute();
  return rows.map((row) => (row.frame as unknown as Rfq).status);
}

/** The statuses of a quote's quoteStatus frames (to its maker), in seq order. */
async function quoteStatusFrames(store: Store, quoteId: string): Promise<string[]> {
  const rows = await store.db.selectFrom('outbox').select(['seq', 'frame']).where('topic', '=', 'quoteStatus').where(sql<string>`frame->>'quoteId'`, '=', quoteId).orderBy('seq').execute();
  return rows.map((row) => (row.frame as unknown as { status: string }).status);
}

async function rfqLocks(store: Store, rfqId: string): Promise<Array<{ amount: bigint; live: boolean }>> {
  const rows = await store.db.selectFrom('locks').select(['amount', 'released_at']).where('owner_kind', '=', 'rfq').where('owner_id', '=', rfqId).execute();
  return rows.map((row) => ({ amount: row.amount, live: row.released_at === null }));
}

async function untilSettledDown(read: () => Promise<Rfq[]>, timeoutMs: number): Promise<Rfq[]> {
  return waitUntil(read, (rfqs) => rfqs.every((r) => r.status !== 'PENDING'), 'every RFQ leaves PENDING', { timeoutMs });
}

const skip = process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL: two nodes must share one PostgreSQL database (an in-memory PGlite cannot be shared)';

describe('two nodes on one database [postgres]', () => {
  let database: TestDatabase;
  let nodeA: Harness;
  let nodeB: Harness;
  const closes: Close[] = [];
  let nodeAStopped = false;

  before(async () => {
    if (skip) return;
    database = await createTestDatabase('postgres');
    nodeA = await startHarness('postgres', { database });
    // B closes on its auction thread (production's default on PostgreSQL), A on its own loop: the
    // two kinds of closer race for the same rows.
    nodeB = await startHarness('postgres', { database, auctionsThread: true });
    observeCloses(nodeA, 'A', closes);
    observeCloses(nodeB, 'B', closes);
  });
  after(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await database?.drop();
  });
  afterEach(async () => {
    if (skip) return;
    for (const node of nodeAStopped ? [nodeB] : [nodeA, nodeB]) {
      const invariants = await node.admin.invariants();
      assert.deepEqual(invariants.violations, []);
      assert.equal(invariants.ok, true);
    }
  });

  /** A taker signed in on `home`, funded, plus a second credential for the same wallet on `other`. */
  async function taker(home: Harness, other: Harness, usdc: string) {
    const { client, account } = await home.newUser();
    await home.admin.adjustBalance({ address: account.address, token: 'USDC', amount: usdc, memo: 'test funding' });
    const elsewhere = new RfqClient(other.url);
    await elsewhere.signIn(account);
    return { client, elsewhere, account };
  }

  function buyQuote(rfqId: string, price: string) {
    return { rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: price } };
  }
  // takerTotal = price + 0.25% fee on a BUY.
  const TOTAL: Record<string, string> = { '4400': '4411', '4450': '4461.125', '4500': '4511.25' };

  it('closes every auction exactly once: autoAccept and taker-driven RFQs from node A, quotes through node B', { skip }, async (t) => {
    const TAKERS = 4;
    const RFQS = 48;
    const FUNDING = '100000';
    // The whole set-up (48 RFQs, 144 quotes, 12 accepts) must end before the first auction does.
    // 3 s was enough on a quiet machine but not at load 6-7 (two simulations beside the suite).
    const SETUP_WINDOW_MS = 8000;
    const takers = await Promise.all(Array.from({ length: TAKERS }, () => taker(nodeA, nodeB, FUNDING)));
    const makers = [await nodeB.newMaker(), await nodeB.newMaker(), await nodeB.newMaker()];
    // Kinds: 0 autoAccept with conforming quotes -> QUOTED (best selected); 1 autoAccept with no
    // conforming quote (over quoteLimit, or none at all) -> FAILED; 2 taker-driven, accepted through
    // node A or node B -> QUOTED; 3 taker-driven, never accepted -> CANCELLED.
    type Plan = { i: number; kind: 0 | 1 | 2 | 3; owner: (typeof takers)[number]; rfqId: string; auctionEndsAt: number; quotes: Array<{ quoteId: string; price: string }>; winner: string | null };
    const plans: Plan[] = await Promise.all(Array.from({ length: RFQS }, async (_, i) => {
      const kind = (i % 4) as Plan['kind'];
      const owner = takers[Math.floor(i / 3) % TAKERS]!; // every taker gets every kind
      const autoAccept = kind === 0 || kind === 1;
      const created = await owner.client.createRfq({
        instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: SETUP_WINDOW_MS, autoAccept,
        ...(autoAccept ? { quoteLimit: kind === 0 ? '5000' : '4000' } : {}),
      });
      // Node B arms its own deadline timer too, so both nodes' timers (and both sweeps) go for the
      // same row at the same instant.
      nodeB.node.context.service.hooks.auctionScheduled(created.rfqId, created.auctionEndsAt);
      return { i, kind, owner, rfqId: created.rfqId, auctionEndsAt: created.auctionEndsAt, quotes: [], winner: null };
    }));

    // Every maker quotes on every RFQ (except the no-quote half of kind 1), through node B; the
    // best price rotates between makers.
    const prices = ['4400', '4450', '4500'];
    await Promise.all(plans.flatMap((plan) => {
      if (plan.kind === 1 && plan.i % 8 === 5) return [];
      return makers.map(async (maker, m) => {
        const price = prices[(m + plan.i) % 3]!;
        const q = await maker.client.submitQuote(buyQuote(plan.rfqId, price));
        plan.quotes.push({ quoteId: q.quoteId, price });
      });
    }));
    // Taker-driven accepts of the middle price, alternating the node they go through.
    await Promise.all(plans.filter((p) => p.kind === 2).map(async (plan) => {
      const pick = plan.quotes.find((q) => q.price === '4450')!;
      const via = plan.i % 8 === 2 ? plan.owner.client : plan.owner.elsewhere;
      const accepted = await via.accept(plan.rfqId, { quoteId: pick.quoteId, expectedVersion: 1 });
      assert.equal(accepted.status, 'QUOTED');
      plan.winner = pick.quoteId;
    }));
    for (const plan of plans) if (plan.kind === 0) plan.winner = plan.quotes.find((q) => q.price === '4400')!.quoteId;
    assert.ok(Date.now() < Math.min(...plans.map((p) => p.auctionEndsAt)), 'setup finished before the first deadline');

    // Read through node B (the taker's second credential), which never saw the RFQs created.
    await untilSettledDown(() => Promise.all(plans.map((p) => p.owner.elsewhere.getRfq(p.rfqId))), 10_000);
    // Every deadline passed (the accepted RFQs' timers included), then a later sweep on each node
    // with what it and those timers found: a second close would have been recorded by then (node
    // B's arrive from its thread before its answer).
    await waitUntil(() => Date.now(), (now) => now > Math.max(...plans.map((p) => p.auctionEndsAt)), 'every auction deadline passed');
    await Promise.all([nodeA.node.afterPass('auctions'), nodeB.node.afterPass('auctions')]);

    const store = nodeB.node.store;
    const expectedStatus: Record<Plan['kind'], RfqStatus> = { 0: 'QUOTED', 1: 'FAILED', 2: 'QUOTED', 3: 'CANCELLED' };
    const lockedBy = new Map<string, bigint>();
    for (const plan of plans) {
      const context = `rfq ${plan.i} (kind ${plan.kind})`;
      const rfq = await plan.owner.client.getRfq(plan.rfqId);
      const status = expectedStatus[plan.kind];
      assert.equal(rfq.status, status, context);
      assert.deepEqual(await rfqStatusFrames(store, plan.rfqId), ['PENDING', status], `${context}: one rfqStatus frame per transition`);

      const quotes = (await plan.owner.client.rfqQuotes(plan.rfqId)).items;
      assert.equal(quotes.length, plan.quotes.length, context);
      for (const quote of quotes) {
        const expected = status === 'QUOTED' ? (quote.quoteId === plan.winner ? 'SELECTED' : 'NOT_SELECTED') : 'EXPIRED';
        assert.equal(quote.status, expected, `${context}: quote at ${quote.makerReceives.amount}`);
        assert.deepEqual(await quoteStatusFrames(store, quote.quoteId), ['SUBMITTED', expected], `${context}: one quoteStatus frame per transition`);
      }

      const locks = await rfqLocks(store, plan.rfqId);
      const live = locks.filter((l) => l.live);
      if (status === 'QUOTED') {
        const winnerPrice = plan.quotes.find((q) => q.quoteId === plan.winner)!.price;
        assert.equal(live.length, 1, `${context}: exactly one live lock`);
        assert.equal(live[0]!.amount, micro(TOTAL[winnerPrice]!), `${context}: locked exactly the winner's takerTotal`);
        const key = plan.owner.account.address;
        lockedBy.set(key, (lockedBy.get(key) ?? 0n) + live[0]!.amount);
      } else {
        assert.equal(live.length, 0, `${context}: nothing stays locked`);
      }
      // autoAccept: the submission lock (released) plus, when QUOTED, the exact re-lock.
      assert.equal(locks.length, plan.kind === 0 ? 2 : plan.kind === 1 || plan.kind === 2 ? 1 : 0, `${context}: lock history`);

      const closedBy = closes.filter((c) => c.rfqId === plan.rfqId);
      if (plan.kind === 2) assert.equal(closedBy.length, 0, `${context}: accepted, so no auction close`);
      else assert.equal(closedBy.length, 1, `${context}: closed exactly once, saw ${JSON.stringify(closedBy)}`);
    }
    for (const owner of takers) {
      const usdc = (await owner.elsewhere.balances()).balances.find((b) => b.token === 'USDC')!;
      const locked = lockedBy.get(owner.account.address) ?? 0n;
      assert.deepEqual([micro(usdc.locked), micro(usdc.available)], [locked, micro(FUNDING) - locked], `balances of ${owner.account.address}`);
    }
    const pending = await store.db.selectFrom('rfqs').select('id').where('status', '=', 'PENDING').execute();
    assert.deepEqual(pending, []);
    const byNode = Object.fromEntries(['A', 'B'].map((n) => [n, closes.filter((c) => c.node === n).length]));
    t.diagnostic(`auction closes by node: ${JSON.stringify(byNode)}; latest close ${Math.max(...closes.map((c) => c.closedAt - c.auctionEndsAt))} ms after its deadline`);
  });

  // Runs last: it stops node A.
  it('RFQs created on node A are closed by node B\'s sweep when node A stops right after creating them', { skip }, async () => {
    const owners = [await taker(nodeA, nodeB, '20000'), await taker(nodeA, nodeB, '20000')];
    const [maker, rival] = [await nodeB.newMaker(), await nodeB.newMaker()];
    const created = await Promise.all([
      owners[0]!.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', autoAccept: true, windowMs: 1500 }),
      owners[0]!.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', autoAccept: true, windowMs: 1500 }),
      owners[1]!.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 1500 }),
    ]);
    await nodeA.close(); // its deadline timers for these RFQs go with it
    nodeAStopped = true;
    const closesBefore = closes.length;
    const [quoted, failed, cancelled] = created.map((c) => c.rfqId) as [string, string, string];
    const winner = await maker.client.submitQuote(buyQuote(quoted, '4400'));
    const loser = await rival.client.submitQuote(buyQuote(quoted, '4500'));
    const expired = await maker.client.submitQuote(buyQuote(cancelled, '4400'));

    const read = () => Promise.all([owners[0]!.elsewhere.getRfq(quoted), owners[0]!.elsewhere.getRfq(failed), owners[1]!.elsewhere.getRfq(cancelled)]);
    await untilSettledDown(read, 5000);
    // A later sweep of node B's, with what it found: a second close would have been recorded.
    await nodeB.node.afterPass('auctions');
    const [q, f, c] = await read();
    assert.deepEqual([q.status, f.status, c.status], ['QUOTED', 'FAILED', 'CANCELLED']);
    assert.equal((await owners[0]!.elsewhere.getQuote(winner.quoteId)).status, 'SELECTED');
    assert.equal((await owners[0]!.elsewhere.getQuote(loser.quoteId)).status, 'NOT_SELECTED');
    assert.equal((await owners[1]!.elsewhere.getQuote(expired.quoteId)).status, 'EXPIRED');
    const usdc = (await owners[0]!.elsewhere.balances()).balances.find((b) => b.token === 'USDC')!;
    assert.deepEqual([usdc.available, usdc.locked], ['15589', '4411'], 'the winner re-locked exactly, the failed RFQ released');
    const other = (await owners[1]!.elsewhere.balances()).balances.find((b) => b.token === 'USDC')!;
    assert.deepEqual([other.available, other.locked], ['20000', '0']);

    const after = closes.slice(closesBefore);
    for (const id of [quoted, failed, cancelled]) {
      const closedBy = after.filter((x) => x.rfqId === id);
      assert.deepEqual(closedBy.map((x) => x.node), ['B'], `closed once, by node B (${id})`);
      assert.ok(closedBy[0]!.closedAt - closedBy[0]!.auctionEndsAt < 2000, 'within a few sweeps of the deadline');
      assert.equal((await rfqStatusFrames(nodeB.node.store, id)).length, 2, 'PENDING and the one close');
    }
  });
});
