/**
 * A SWEEP RFQ settled with permit2 on a devnet, through the real HTTP API: every selected quote
 * is its own leg with its own permit, relayed by its maker; a leg that is not relayed fails alone
 * at the deadline; the RFQ is SETTLED with the sums of the settled legs, and every balance, on
 * the ledger and on chain, is exact.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { startTestChain, testAccount, type TestChain } from '../../helpers/chain.ts';
import { waitUntil } from '../../helpers/eventually.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import { balanceOf, chainMaker, fundedTaker, raw, relay, rfqReaches, winningQuote } from '../../helpers/settlement.ts';

for (const backend of backends()) {
  describe(`SWEEP settlement with permit2 on a devnet [${backend}]`, () => {
    let chain: TestChain;
    let h: Harness;
    before(async () => {
      chain = await startTestChain();
      h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, logLevel: 'fatal' });
      await h.admin.putSettings({ settlementHeadroomSecs: 2 });
    });
    after(async () => {
      await h?.close();
      await chain?.stop();
    });
    afterEach(async () => {
      const invariants = await h.admin.invariants();
      assert.deepEqual(invariants.violations, []);
    });

    it('BUY from three makers: two legs relayed settle, the third fails alone at the deadline; SETTLED with the settled legs summed', async () => {
      const [a, b, c] = [await chainMaker(h, chain), await chainMaker(h, chain), await chainMaker(h, chain)];
      const taker = await fundedTaker(h, chain, { USDC: '10000' });
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '3', quoteLimit: '9100', fill: 'SWEEP', minFillQty: '2', windowMs: 4000 });
      const quote = (amount: string, price: string, extra: Record<string, unknown> = {}) => ({
        rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount }, makerReceives: { token: 'USDC', amount: price }, ...extra,
      });
      const qa = (await a.client.submitQuote(quote('1', '2990'))).quoteId;
      const qb = (await b.client.submitQuote(quote('1', '2980'))).quoteId;
      const qc = (await c.client.submitQuote(quote('2', '6000.000001', { allOrNone: false }))).quoteId;
      const accepted = await taker.client.acceptSweep(rfqId, { sweep: true });
      assert.deepEqual(accepted.quoteIds, [qb, qa, qc]);

      // Each leg has its own permit, for its legs as selected: C's is cut to the 1 ETH left.
      const legB = await winningQuote(b, qb);
      const legC = await winningQuote(c, qc);
      assert.deepEqual([legC.makerPays.amount, legC.makerReceives.amount, legC.selectedQty], ['1', '3000.000001', '1']);
      assert.notEqual(legB.permitSignature, legC.permitSignature);
      const cBefore = { usdc: await chain.balanceOf('USDC', c.account.address), eth: await chain.balanceOf('ETH', c.account.address) };
      const receiptB = await relay(chain, b, legB);
      const receiptC = await relay(chain, c, legC);
      assert.deepEqual([receiptB.status, receiptC.status], ['success', 'success']);

      const rfq = await rfqReaches(taker.client, rfqId, 'SETTLED', 30_000);
      assert.deepEqual(rfq.fills, [
        { quoteId: qb, baseQty: '1', quoteQty: '2980', status: 'SETTLED', txHash: receiptB.transactionHash },
        { quoteId: qa, baseQty: '1', quoteQty: '2990', status: 'FAILED' },
        { quoteId: qc, baseQty: '1', quoteQty: '3000.000001', status: 'SETTLED', txHash: receiptC.transactionHash },
      ]);
      // 2980 + 7.45 and 3000.000001 + 7.5 (0.25 %, rounded down).
      assert.deepEqual([rfq.executedPayAmount, rfq.executedRecvAmount, rfq.takerFee], ['5994.950001', '2', '14.95']);
      const { balances } = await taker.client.balances();
      assert.deepEqual(balanceOf(balances, 'USDC'), { available: '4005.049999', locked: '0' });
      assert.deepEqual(balanceOf(balances, 'ETH'), { available: '2', locked: '0' });
      assert.equal((await a.client.makerQuotes()).items.find((q) => q.quoteId === qa)!.status, 'FAILED');
      assert.equal(await chain.balanceOf('USDC', c.account.address) - cBefore.usdc, raw('USDC', '3000.000001'));
      assert.equal(cBefore.eth - await chain.balanceOf('ETH', c.account.address), raw('ETH', '1'));
    });

    it('SELL to two makers: the fee is in the quote token on each leg, taken from what the taker receives', async () => {
      const [x, y] = [await chainMaker(h, chain), await chainMaker(h, chain)];
      const taker = await fundedTaker(h, chain, { ETH: '3' });
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'SELL', baseQty: '2', fill: 'SWEEP', windowMs: 4000 });
      const quote = (price: string) => ({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'SELL' as const, makerPays: { token: 'USDC', amount: price }, makerReceives: { token: 'ETH', amount: '1' } });
      const qx = (await x.client.submitQuote(quote('2990'))).quoteId;
      const qy = (await y.client.submitQuote(quote('3000'))).quoteId;
      assert.equal((await taker.client.getQuote(qx)).takerTotal, '1', 'a SELL sweep quote takes its base');
      const accepted = await taker.client.acceptSweep(rfqId, { sweep: true });
      assert.deepEqual(accepted.quoteIds, [qy, qx]);
      assert.deepEqual(balanceOf((await taker.client.balances()).balances, 'ETH'), { available: '1', locked: '2' });
      for (const [maker, id] of [[y, qy], [x, qx]] as const) assert.equal((await relay(chain, maker, await winningQuote(maker, id))).status, 'success');
      const rfq = await rfqReaches(taker.client, rfqId, 'SETTLED', 30_000);
      // 3000 - 7.5 + 2990 - 7.475.
      assert.deepEqual([rfq.executedPayAmount, rfq.executedRecvAmount, rfq.takerFee], ['2', '5975.025', '14.975']);
      const { balances } = await taker.client.balances();
      assert.deepEqual(balanceOf(balances, 'ETH'), { available: '1', locked: '0' });
      assert.deepEqual(balanceOf(balances, 'USDC'), { available: '5975.025', locked: '0' });
    });

    it('mixes modes: a promised leg settles on its delivery and is paid out, a permit2 leg on its relay, an undelivered promised leg fails alone', async () => {
      const promisedMaker = async () => {
        const account = testAccount();
        await chain.fundGas(account.address);
        await h.admin.putMaker(account.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['promised'] });
        const client = new RfqClient(h.url);
        await client.signIn(account);
        return { account, client };
      };
      const [late, prompt, relayer] = [await promisedMaker(), await promisedMaker(), await chainMaker(h, chain)];
      const taker = await fundedTaker(h, chain, { USDC: '10000' });
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '3', quoteLimit: '9100', fill: 'SWEEP', minFillQty: '1', windowMs: 4000 });
      const quote = (price: string) => ({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: price } });
      const qLate = (await late.client.submitQuote(quote('2970'))).quoteId;
      const qPrompt = (await prompt.client.submitQuote(quote('2980'))).quoteId;
      const qRelay = (await relayer.client.submitQuote(quote('2990'))).quoteId;
      assert.deepEqual((await taker.client.acceptSweep(rfqId, { sweep: true })).quoteIds, [qLate, qPrompt, qRelay]);

      await chain.mint('ETH', prompt.account.address, raw('ETH', '1'));
      const delivery = await chain.transfer(prompt.account, 'ETH', chain.custody, raw('ETH', '1'));
      assert.equal((await relay(chain, relayer, await winningQuote(relayer, qRelay))).status, 'success');
      const rfq = await rfqReaches(taker.client, rfqId, 'SETTLED', 30_000);
      assert.deepEqual(rfq.fills!.map((f) => [f.quoteId, f.status]), [[qLate, 'FAILED'], [qPrompt, 'SETTLED'], [qRelay, 'SETTLED']]);
      assert.equal(rfq.fills![1]!.txHash, delivery);
      // 2980 + 7.45 and 2990 + 7.475.
      assert.deepEqual([rfq.executedPayAmount, rfq.executedRecvAmount, rfq.takerFee], ['5984.925', '2', '14.925']);
      assert.deepEqual(balanceOf((await taker.client.balances()).balances, 'USDC'), { available: '4015.075', locked: '0' });
      await waitUntil(() => chain.balanceOf('USDC', prompt.account.address), (b) => b === raw('USDC', '2980'), 'the promised payout', { timeoutMs: 30_000 });
    });
  });
}
