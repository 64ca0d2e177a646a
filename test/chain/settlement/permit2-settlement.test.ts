/**
 * permit2 settlement end to end on a devnet, through the real HTTP API: the taker accepts (or the
 * auction auto-selects), the winning maker relays the custody-signed permit through its wrapper,
 * the node's chain follower sees RfqSettled and settles the ledger exactly once. Also: what the
 * follower must not settle (forged events, wrong legs, re-delivered blocks), a settlement after
 * the service gave up, deadlines judged on chain time, and maker suspension. The anomalies these
 * record hold no quarantined log: the operator's replay of one is refused (409
 * ANOMALY_NOT_REPLAYABLE) and changes nothing.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { type Hex } from 'viem';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { startTestChain, testAccount, type TestChain } from '../../helpers/chain.ts';
import { balanceOf, chainMaker, fundedTaker, raw, relay, rfqReaches, rpc, until, winningQuote, type ChainMaker } from '../../helpers/settlement.ts';
import { deployForger, forgeRfqSettled } from '../helpers/forger.ts';
import { quoteHash } from '../../../src/chain/permit.ts';
import { readCursor } from '../../../src/store/chain-cursor.ts';
import { expireSettlement } from '../../../src/services/rfq/expire-settlement.ts';

const BUY_QUOTE = (rfqId: string, price = '4300') => ({
  rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: price },
});
// SELL 2 ETH at 0.25 %: the fee 0.005 ETH is carved out, the maker buys 1.995.
const SELL_QUOTE = (rfqId: string, price = '5000') => ({
  rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'SELL' as const, makerPays: { token: 'USDC', amount: price }, makerReceives: { token: 'ETH', amount: '1.995' },
});

for (const backend of backends()) {
  describe(`permit2 settlement on a devnet [${backend}]`, () => {
    let chain: TestChain;
    let h: Harness;
    before(async () => {
      chain = await startTestChain();
      // The anomalies these tests provoke are logged at error level on purpose; keep the test output readable.
      // On PostgreSQL the auctions close on their own thread, as in production (RFQ_AUCTIONS_THREAD):
      // its custody key signs the autoAccept winners' permits there.
      h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, logLevel: 'fatal', auctionsThread: true });
    });
    after(async () => {
      await h?.close();
      await chain?.stop();
    });
    afterEach(async () => {
      const invariants = await h.admin.invariants();
      assert.deepEqual(invariants.violations, []);
    });

    async function onChain(maker: ChainMaker) {
      return {
        makerUsdc: await chain.balanceOf('USDC', maker.account.address),
        makerEth: await chain.balanceOf('ETH', maker.account.address),
        custodyUsdc: await chain.balanceOf('USDC', chain.custody),
        custodyEth: await chain.balanceOf('ETH', chain.custody),
      };
    }

    async function ledgerOf(client: { ledger(): Promise<{ entries: Array<{ token: string; delta: string; source: string }> }> }) {
      const { entries } = await client.ledger();
      return entries.map((e) => `${e.source} ${e.token} ${e.delta}`).sort();
    }

    it('refuses a permit2 maker without its wrapper, and quotes on a token with no chain address', async () => {
      const maker = testAccount();
      const error = await rejects(h.admin.putMaker(maker.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['permit2'] }), 400, 'INVALID_REQUEST');
      assert.deepEqual((error.details?.errors as Array<{ field: string; reason: string }>).map((e) => [e.field, e.reason]), [['spender', 'required']]);

      await h.admin.putToken('DOGE', { decimals: 8 });
      await h.admin.putInstrument('DOGE-USDC-SPOT', { base: 'DOGE', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 100 });
      const m = await chainMaker(h, chain, {});
      await h.admin.putMaker(m.account.address, { active: true, pairs: ['DOGE-USDC'], settlementModes: ['permit2'], spender: m.wrapper });
      const taker = await h.newUser();
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'DOGE-USDC-SPOT', side: 'BUY', baseQty: '10', windowMs: 1000 });
      const refused = await rejects(
        m.client.submitQuote({ rfqId, instrumentId: 'DOGE-USDC-SPOT', side: 'BUY', makerPays: { token: 'DOGE', amount: '10' }, makerReceives: { token: 'USDC', amount: '1' } }),
        400,
        'TOKEN_NOT_ON_CHAIN',
      );
      assert.deepEqual(refused.details?.tokens, ['DOGE']);
    });

    it('BUY, taker-driven: accept, the maker relays, SETTLED with every balance exact', async () => {
      const maker = await chainMaker(h, chain);
      const taker = await fundedTaker(h, chain, { USDC: '10000' });
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 10_000 });
      const { quoteId } = await maker.client.submitQuote(BUY_QUOTE(rfqId));
      await taker.client.accept(rfqId, { quoteId });
      const q = await winningQuote(maker, quoteId);
      assert.equal(q.spender, maker.wrapper);
      assert.match(q.permitSignature!, /^0x[0-9a-f]{130}$/);
      assert.equal(q.settlementDeadline, (await taker.client.getRfq(rfqId)).settlementDeadline);

      const before = await onChain(maker);
      const receipt = await relay(chain, maker, q);
      assert.equal(receipt.status, 'success');
      const rfq = await rfqReaches(taker.client, rfqId, 'SETTLED');
      assert.equal(rfq.txHash, receipt.transactionHash);
      assert.deepEqual([rfq.executedPayAmount, rfq.executedRecvAmount, rfq.takerFee], ['4310.75', '1.5', '10.75']);
      assert.ok(rfq.settledAt! >= rfq.quotedAt!);
      const settledQuote = (await maker.client.makerQuotes()).items.find((x) => x.quoteId === quoteId)!;
      assert.deepEqual([settledQuote.status, settledQuote.txHash, settledQuote.settledAt], ['SETTLED', receipt.transactionHash, rfq.settledAt]);

      const { balances } = await taker.client.balances();
      assert.deepEqual(balanceOf(balances, 'USDC'), { available: '5689.25', locked: '0' });
      assert.deepEqual(balanceOf(balances, 'ETH'), { available: '1.5', locked: '0' });
      assert.deepEqual(await ledgerOf(taker.client), ['ADJUSTMENT USDC 10000', 'FEE USDC -10.75', 'SETTLEMENT ETH 1.5', 'SETTLEMENT USDC -4300'].sort());
      const after = await onChain(maker);
      assert.equal(after.makerUsdc - before.makerUsdc, raw('USDC', '4300'));
      assert.equal(before.makerEth - after.makerEth, raw('ETH', '1.5'));
      assert.equal(before.custodyUsdc - after.custodyUsdc, raw('USDC', '4300'), 'the fee stays in custody');
      assert.equal(after.custodyEth - before.custodyEth, raw('ETH', '1.5'));
    });

    it('SELL, taker-driven: SETTLED with every balance exact', async () => {
      const maker = await chainMaker(h, chain);
      const taker = await fundedTaker(h, chain, { ETH: '3' });
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'SELL', baseQty: '2', windowMs: 10_000 });
      const { quoteId } = await maker.client.submitQuote(SELL_QUOTE(rfqId));
      await taker.client.accept(rfqId, { quoteId });
      const before = await onChain(maker);
      const receipt = await relay(chain, maker, await winningQuote(maker, quoteId));
      const rfq = await rfqReaches(taker.client, rfqId, 'SETTLED');
      assert.deepEqual([rfq.txHash, rfq.executedPayAmount, rfq.executedRecvAmount, rfq.takerFee], [receipt.transactionHash, '2', '5000', '0.005']);
      const { balances } = await taker.client.balances();
      assert.deepEqual(balanceOf(balances, 'ETH'), { available: '1', locked: '0' });
      assert.deepEqual(balanceOf(balances, 'USDC'), { available: '5000', locked: '0' });
      assert.deepEqual(await ledgerOf(taker.client), ['ADJUSTMENT ETH 3', 'FEE ETH -0.005', 'SETTLEMENT ETH -1.995', 'SETTLEMENT USDC 5000'].sort());
      const after = await onChain(maker);
      assert.equal(after.makerEth - before.makerEth, raw('ETH', '1.995'));
      assert.equal(before.makerUsdc - after.makerUsdc, raw('USDC', '5000'));
      assert.equal(before.custodyEth - after.custodyEth, raw('ETH', '1.995'));
      assert.equal(after.custodyUsdc - before.custodyUsdc, raw('USDC', '5000'));
    });

    it('autoAccept BUY and SELL: selected at the deadline, relayed, SETTLED exactly', async () => {
      const maker = await chainMaker(h, chain);
      const taker = await fundedTaker(h, chain, { USDC: '10000', ETH: '2' });
      const buy = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', autoAccept: true, windowMs: 1500 });
      const sell = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'SELL', baseQty: '2', autoAccept: true, windowMs: 1500 });
      const buyQuote = await maker.client.submitQuote(BUY_QUOTE(buy.rfqId, '4000'));
      const sellQuote = await maker.client.submitQuote(SELL_QUOTE(sell.rfqId, '5200'));
      const before = await onChain(maker);
      for (const { quoteId } of [buyQuote, sellQuote]) assert.equal((await relay(chain, maker, await winningQuote(maker, quoteId))).status, 'success');
      const boughtRfq = await rfqReaches(taker.client, buy.rfqId, 'SETTLED');
      const soldRfq = await rfqReaches(taker.client, sell.rfqId, 'SETTLED');
      assert.deepEqual([boughtRfq.executedPayAmount, boughtRfq.executedRecvAmount, boughtRfq.takerFee], ['4010', '1.5', '10']);
      assert.deepEqual([soldRfq.executedPayAmount, soldRfq.executedRecvAmount, soldRfq.takerFee], ['2', '5200', '0.005']);
      const { balances } = await taker.client.balances();
      assert.deepEqual(balanceOf(balances, 'USDC'), { available: '11190', locked: '0' }, '10000 - 4010 + 5200');
      assert.deepEqual(balanceOf(balances, 'ETH'), { available: '1.5', locked: '0' }, '2 - 2 + 1.5');
      const after = await onChain(maker);
      assert.equal(after.makerUsdc - before.makerUsdc, raw('USDC', '4000') - raw('USDC', '5200'));
      assert.equal(after.makerEth - before.makerEth, raw('ETH', '1.995') - raw('ETH', '1.5'));
      assert.equal(after.custodyUsdc - before.custodyUsdc, raw('USDC', '1200'));
      assert.equal(after.custodyEth - before.custodyEth, raw('ETH', '1.5') - raw('ETH', '1.995'));
    });

    it('settles nothing on a forged RfqSettled (other emitter) or on wrong legs from the wrapper address; the real relay then settles', async () => {
      const maker = await chainMaker(h, chain);
      const taker = await fundedTaker(h, chain, { USDC: '10000' });
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 10_000 });
      const { quoteId } = await maker.client.submitQuote(BUY_QUOTE(rfqId));
      await taker.client.accept(rfqId, { quoteId });
      const q = await winningQuote(maker, quoteId);
      const exact = {
        quoteHash: quoteHash(quoteId), maker: maker.account.address,
        payToken: chain.token('USDC'), payAmount: raw('USDC', '4300'), deliverToken: chain.token('ETH'), deliverAmount: raw('ETH', '1.5'),
      };
      // Same arguments as the real settlement, from a contract that is not the maker's wrapper.
      const forger = await deployForger(chain);
      const forged = await forgeRfqSettled(chain, forger, exact);
      // The wrapper's own address emitting wrong legs: only possible by swapping its code (anvil_setCode).
      const wrapperCode = await rpc<Hex>(chain.rpcUrl, 'eth_getCode', [maker.wrapper, 'latest']);
      await rpc(chain.rpcUrl, 'anvil_setCode', [maker.wrapper, await rpc<Hex>(chain.rpcUrl, 'eth_getCode', [forger, 'latest'])]);
      const short = await forgeRfqSettled(chain, maker.wrapper, { ...exact, payAmount: exact.payAmount + 1n });
      const wrongMaker = await forgeRfqSettled(chain, maker.wrapper, { ...exact, maker: testAccount().address });
      await rpc(chain.rpcUrl, 'anvil_setCode', [maker.wrapper, wrapperCode]);

      const anomalies = await until(
        () => h.admin.call<{ anomalies: Array<{ txHash: string; logIndex: number; kind: string; quoteId: string; detail: { mismatches: string[] } }> }>('GET', '/settlement-anomalies'),
        (r) => [forged, short, wrongMaker].every((tx) => r.anomalies.some((a) => a.txHash === tx)),
      );
      const mismatchesOf = (tx: string) => anomalies.anomalies.find((a) => a.txHash === tx)!.detail.mismatches;
      assert.deepEqual(mismatchesOf(forged), ['emitter']);
      assert.deepEqual(mismatchesOf(short), ['payAmount']);
      assert.deepEqual(mismatchesOf(wrongMaker), ['maker']);
      // A mismatch holds no quarantined log: replaying it is refused and leaves it open.
      const forgedAnomaly = anomalies.anomalies.find((a) => a.txHash === forged)!;
      const refused = await rejects(h.admin.replayAnomaly({ txHash: forged, logIndex: forgedAnomaly.logIndex }), 409, 'ANOMALY_NOT_REPLAYABLE');
      assert.equal(refused.details?.['kind'], 'MISMATCH');
      const after = (await h.admin.call<{ anomalies: Array<{ txHash: string; resolvedAt: number | null }> }>('GET', '/settlement-anomalies')).anomalies.find((a) => a.txHash === forged)!;
      assert.equal(after.resolvedAt, null);
      assert.equal((await taker.client.getRfq(rfqId)).status, 'QUOTED');
      assert.deepEqual(balanceOf((await taker.client.balances()).balances, 'USDC'), { available: '5689.25', locked: '4310.75' });

      const receipt = await relay(chain, maker, q);
      assert.equal((await rfqReaches(taker.client, rfqId, 'SETTLED')).txHash, receipt.transactionHash);
    });

    it('an RfqSettled for a trade already FAILED is booked to suspense and listed for the operator; the taker is untouched', async () => {
      const maker = await chainMaker(h, chain);
      const taker = await fundedTaker(h, chain, { USDC: '10000' });
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 10_000 });
      const { quoteId } = await maker.client.submitQuote(BUY_QUOTE(rfqId));
      await taker.client.accept(rfqId, { quoteId });
      const q = await winningQuote(maker, quoteId);
      // A node judging by a wall clock far ahead fails the trade while the permit is still valid on chain.
      const deps = h.node.context.service;
      assert.equal(await expireSettlement({ ...deps, settlement: {}, clock: { now: () => Date.now() + 3_600_000 } }, rfqId), true);
      assert.equal((await taker.client.getRfq(rfqId)).status, 'FAILED');

      const receipt = await relay(chain, maker, q);
      assert.equal(receipt.status, 'success');
      const { anomalies } = await until(
        () => h.admin.call<{ anomalies: Array<{ txHash: string; logIndex: number; kind: string; quoteId: string; rfqId: string }> }>('GET', '/settlement-anomalies'),
        (r) => r.anomalies.some((a) => a.txHash === receipt.transactionHash),
      );
      const anomaly = anomalies.find((a) => a.txHash === receipt.transactionHash)!;
      assert.deepEqual([anomaly.kind, anomaly.quoteId, anomaly.rfqId], ['SETTLED_AFTER_FAILURE', quoteId, rfqId]);
      const rfq = await taker.client.getRfq(rfqId);
      assert.deepEqual([rfq.status, rfq.txHash], ['FAILED', undefined]);
      assert.deepEqual(balanceOf((await taker.client.balances()).balances, 'USDC'), { available: '10000', locked: '0' });
      const suspense = await sql<{ token: string; total: string }>`
        select token, sum(delta)::text as total from ledger_postings where book = 'suspense' and movement_id in
          (select movement_id from ledger_movements where reference = ${rfqId}) group by token order by token
      `.execute(h.node.store.db);
      assert.deepEqual(suspense.rows, [{ token: 'ETH', total: raw('ETH', '1.5').toString() }, { token: 'USDC', total: (-raw('USDC', '4300')).toString() }]);

      // Not a quarantined log: the operator's replay is refused and changes nothing (a replay that
      // re-ran the settlement would book custody's movement to suspense a second time).
      const db = h.node.store.db;
      const state = async () => ({
        postings: (await sql<{ n: number }>`select count(*)::int as n from ledger_postings`.execute(db)).rows[0]!.n,
        anomaly: (await sql<{ resolved_at: number | null; resolution: string | null }>`select resolved_at, resolution from settlement_anomalies where tx_hash = ${receipt.transactionHash.toLowerCase()}`.execute(db)).rows,
        rfq: (await taker.client.getRfq(rfqId)).status,
        balances: (await taker.client.balances()).balances,
      });
      const before = await state();
      const refused = await rejects(h.admin.replayAnomaly({ txHash: receipt.transactionHash, logIndex: anomaly.logIndex }), 409, 'ANOMALY_NOT_REPLAYABLE');
      assert.equal(refused.details?.['kind'], 'SETTLED_AFTER_FAILURE');
      assert.deepEqual(await state(), before);
      assert.deepEqual(before.anomaly, [{ resolved_at: null, resolution: null }], 'still open for the operator');
    });

    it('re-delivered blocks (the follower re-run from an earlier cursor) settle nothing twice', async () => {
      const db = h.node.store.db;
      const snapshot = async () => ({
        postings: (await sql<{ n: number }>`select count(*)::int as n from ledger_postings`.execute(db)).rows[0]!.n,
        anomalies: (await sql<{ n: number }>`select count(*)::int as n from settlement_anomalies`.execute(db)).rows[0]!.n,
        statuses: (await sql<{ id: string; status: string; tx_hash: string | null }>`select id, status, tx_hash from rfqs order by id`.execute(db)).rows,
        balances: (await sql<{ account_id: string; token: string; available: string; locked: string }>`select account_id, token, available::text, locked::text from balances order by 1, 2`.execute(db)).rows,
      });
      const before = await snapshot();
      assert.ok(before.statuses.filter((r) => r.status === 'SETTLED').length >= 5);
      const head = (await readCursor(db, 'main'))!;
      const from = (await rpc<{ hash: Hex; timestamp: Hex }>(chain.rpcUrl, 'eth_getBlockByNumber', ['0x1', false]))!;
      await sql`update chain_cursors set block_number = 1, block_hash = ${from.hash}, block_timestamp = ${Number(from.timestamp)} where name = 'main'`.execute(db);
      await until(() => readCursor(db, 'main'), (c) => c!.blockNumber > head.blockNumber, 60_000);
      assert.deepEqual(await snapshot(), before);
    });
    /** A taker-driven BUY the maker wins and then lets lapse; resolves with the FAILED RFQ. */
    async function lapse(maker: ChainMaker) {
      const taker = await fundedTaker(h, chain, { USDC: '5000' });
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 1000 });
      const { quoteId } = await maker.client.submitQuote(BUY_QUOTE(rfqId));
      await taker.client.accept(rfqId, { quoteId });
      const q = await winningQuote(maker, quoteId);
      const failed = await rfqReaches(taker.client, rfqId, 'FAILED');
      return { taker, q, failed };
    }

    const makerView = async (maker: ChainMaker) =>
      (await h.admin.listMakers()).makers.find((m) => m['makerId'] === maker.makerId) as { suspendedUntil: number | null; suspensionCount: number };

    it('a relay after the deadline reverts on chain and the RFQ ends FAILED; failures suspend the maker, doubling, until the operator lifts it', async () => {
      await h.admin.putSettings({ settlementHeadroomSecs: 1, makerFailureThreshold: 2, makerSuspensionBaseMs: 60_000 });
      try {
        const maker = await chainMaker(h, chain);
        const first = await lapse(maker);
        assert.equal(first.failed.failureCode, 'SETTLEMENT_FAILED');
        // Failed only once final chain time passed the deadline.
        assert.ok((await readCursor(h.node.store.db, 'main'))!.blockTimestampSecs > first.q.settlementDeadline!);
        assert.deepEqual(balanceOf((await first.taker.client.balances()).balances, 'USDC'), { available: '5000', locked: '0' });
        const before = await chain.balanceOf('ETH', maker.account.address);
        const late = await relay(chain, maker, first.q);
        assert.equal(late.status, 'reverted', 'Permit2 refuses a permit past its deadline');
        assert.equal(await chain.balanceOf('ETH', maker.account.address), before);
        assert.equal((await makerView(maker)).suspendedUntil, null, 'one failure is below the threshold');

        const second = await lapse(maker);
        const suspended = await makerView(maker);
        const failures = await sql<{ quote_id: string; created_at: number }>`select quote_id, created_at from maker_failures where maker_id = ${maker.makerId} order by created_at`.execute(h.node.store.db);
        assert.deepEqual(failures.rows.map((f) => f.quote_id), [first.q.quoteId, second.q.quoteId]);
        assert.equal(suspended.suspensionCount, 1);
        assert.equal(suspended.suspendedUntil, failures.rows[1]!.created_at + 60_000);
        const taker = await fundedTaker(h, chain, { USDC: '5000' });
        const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 1000 });
        const refused = await rejects(maker.client.submitQuote(BUY_QUOTE(rfqId)), 403, 'MAKER_NOT_APPROVED');
        assert.equal(refused.details?.suspendedUntil, suspended.suspendedUntil);

        const lifted = await h.admin.call<{ suspendedUntil: number | null; suspensionCount: number }>('POST', `/makers/${maker.account.address}/unsuspend`, {});
        assert.deepEqual([lifted.suspendedUntil, lifted.suspensionCount], [null, 1]);
        await maker.client.submitQuote(BUY_QUOTE(rfqId));

        // The next suspension lasts twice as long; failures before the last suspension no longer count.
        await h.admin.putSettings({ makerFailureThreshold: 1 });
        await lapse(maker);
        const again = await makerView(maker);
        const third = (await sql<{ created_at: number }>`select max(created_at)::int8 as created_at from maker_failures where maker_id = ${maker.makerId}`.execute(h.node.store.db)).rows[0]!;
        assert.deepEqual([again.suspensionCount, again.suspendedUntil], [2, third.created_at + 120_000]);
        await h.admin.call('POST', `/makers/${maker.account.address}/unsuspend`, {});
      } finally {
        await h.admin.putSettings({ settlementHeadroomSecs: 60, makerFailureThreshold: 3, makerSuspensionBaseMs: 600_000 });
      }
    });

    it('does not count a lapse against the maker when no node of the service was alive during part of its window', async () => {
      await h.admin.putSettings({ settlementHeadroomSecs: 1, makerFailureThreshold: 1 });
      const db = h.node.store.db;
      // The outage a node's start records (service-outages.ts), here spanning the whole trade.
      const outage = { started_at: Date.now() - 1000, ended_at: Date.now() + 120_000 };
      await db.insertInto('service_outages').values(outage).execute();
      try {
        const maker = await chainMaker(h, chain);
        const lapsed = await lapse(maker);
        assert.equal(lapsed.failed.failureCode, 'SETTLEMENT_FAILED', 'the trade fails as before');
        assert.deepEqual(balanceOf((await lapsed.taker.client.balances()).balances, 'USDC'), { available: '5000', locked: '0' });
        const failures = await db.selectFrom('maker_failures').select('quote_id').where('maker_id', '=', maker.makerId).execute();
        assert.deepEqual(failures, [], 'nothing recorded against the maker');
        assert.equal((await makerView(maker)).suspendedUntil, null, 'a threshold of one would have suspended it');
      } finally {
        await db.deleteFrom('service_outages').where('started_at', '=', outage.started_at).execute();
        await h.admin.putSettings({ settlementHeadroomSecs: 60, makerFailureThreshold: 3 });
      }
    });

    // Last: it moves chain time relative to the wall clock.
    it('judges the deadline on chain time: past it by the wall clock but mined in the deadline second, the settlement succeeds', async () => {
      await h.admin.putSettings({ settlementHeadroomSecs: 1 });
      try {
        const maker = await chainMaker(h, chain);
        const taker = await fundedTaker(h, chain, { USDC: '5000' });
        const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 1000 });
        const { quoteId } = await maker.client.submitQuote(BUY_QUOTE(rfqId));
        await taker.client.accept(rfqId, { quoteId });
        const q = await winningQuote(maker, quoteId);
        // Stop the chain's clock (no interval blocks), then let the wall clock pass the deadline.
        // Interval 0 stops all mining; automine then mines each transaction alone, as the relay needs.
        await rpc(chain.rpcUrl, 'evm_setIntervalMining', [0]);
        await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);
        try {
          const latest = await rpc<{ timestamp: Hex }>(chain.rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
          assert.ok(Number(latest.timestamp) < q.settlementDeadline!, 'chain time is still before the deadline');
          await until(async () => Date.now(), (now) => now > (q.settlementDeadline! + 2) * 1000, 10_000);
          // An expiry sweep begun now, with what it found: a wall-clock expiry would fail the RFQ in it.
          await h.node.afterPass('settlement-expiry');
          assert.equal((await taker.client.getRfq(rfqId)).status, 'QUOTED');
          await rpc(chain.rpcUrl, 'evm_setNextBlockTimestamp', [q.settlementDeadline]);
          const receipt = await relay(chain, maker, q);
          assert.equal(receipt.status, 'success');
          const block = await rpc<{ timestamp: Hex }>(chain.rpcUrl, 'eth_getBlockByNumber', [receipt.blockNumber.toString(16).replace(/^/, '0x'), false]);
          assert.equal(Number(block.timestamp), q.settlementDeadline);
        } finally {
          await rpc(chain.rpcUrl, 'evm_setIntervalMining', [1]);
        }
        const rfq = await rfqReaches(taker.client, rfqId, 'SETTLED');
        assert.equal(rfq.executedPayAmount, '4310.75');
      } finally {
        await h.admin.putSettings({ settlementHeadroomSecs: 60 });
      }
    });
  });
}
