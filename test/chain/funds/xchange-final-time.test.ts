/**
 * An xchange swap mined before its deadline settles its RFQ even when the follower books it after
 * the wall clock passed the deadline (found by the seeded simulation, seed 43 with --chain). The
 * adapter executes a swap while `block.timestamp <= expiration` (the RFQ's settlementDeadline), so
 * as for permit2 the deadline is judged on final chain time, never the wall clock: failing the RFQ
 * by the wall clock released the taker's lock while custody had already paid the maker, and the
 * swap then found no QUOTED RFQ to settle (custody short on chain, the taker able to spend the
 * funds again).
 *
 * The swap's block is kept from becoming final by pausing the chain right after it is mined
 * (confirmation depth 6), while the wall clock passes the deadline.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { keccak256, stringToHex } from 'viem';
import { xchangeAdapterAbi } from '../../../src/chain/artifacts/index.ts';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { startTestChain, testAccount, type TestChain } from '../../helpers/chain.ts';
import { balanceOf, rpc, waitFor } from './helpers.ts';
import { acceptedXchangeQuote, ETH_RAW, setUpXchangeMaker, type XchangeMaker } from './xchange-maker.ts';
import { elapse } from '../../helpers/eventually.ts';

for (const backend of backends()) {
  describe(`xchange deadline on final chain time (${backend})`, () => {
    let chain: TestChain;
    let h: Harness;
    let maker: XchangeMaker;

    before(async () => {
      chain = await startTestChain({ confirmations: 6 });
      h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses });
      // Room for the executor on a loaded machine between the accept and the deadline.
      await h.admin.putSettings({ settlementHeadroomSecs: 8 });
      maker = await setUpXchangeMaker(h, chain, testAccount(), testAccount(), ETH_RAW);
    });
    after(async () => {
      await rpc(chain, 'evm_setAutomine', [true]).catch(() => undefined);
      await rpc(chain, 'evm_setIntervalMining', [1]).catch(() => undefined);
      await h?.close();
      await chain?.stop();
    });

    it('a swap mined before the deadline but final after the wall clock passed it settles the RFQ; nothing is paid twice', async () => {
      const { taker, rfqId, quoteId, settlementDeadline } = await acceptedXchangeQuote(maker, 3000);

      // Custody executes the swap; as soon as it is mined the chain stops, a few blocks short of final.
      const used = () => h.node.context.chain!.custody.publicClient.readContract({ address: maker.adapter, abi: xchangeAdapterAbi, functionName: 'quoteUsed', args: [keccak256(stringToHex(quoteId))] });
      await waitFor('swap mined', used, (u) => u);
      await rpc(chain, 'evm_setIntervalMining', [0]);
      await rpc(chain, 'evm_setAutomine', [false]);
      const head = await rpc<{ timestamp: string }>(chain, 'eth_getBlockByNumber', ['latest', false]);
      assert.ok(Number(head.timestamp) <= settlementDeadline, 'the swap was mined by the deadline');
      assert.equal((await taker.client.getRfq(rfqId)).status, 'QUOTED', 'not yet booked: its block is not final');

      // The wall clock passes the deadline; the settlement worker runs several times meanwhile.
      await elapse((settlementDeadline + 1) * 1000 - Date.now() + 1, 'the wall clock passes the settlement deadline');
      // An expiry sweep begun after that has ended, with what it found: an expiry by the wall
      // clock would have failed the RFQ in it.
      await h.node.afterPass('settlement-expiry');
      const meanwhile = await taker.client.getRfq(rfqId);
      assert.equal(meanwhile.status, 'QUOTED', `a swap mined by the deadline may still be booked: ${JSON.stringify(meanwhile)}`);
      assert.deepEqual(await balanceOf(taker.client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '1992.5', locked: '3007.5', total: '5000' });

      // The chain goes on: the swap's block becomes final and settles the RFQ, once.
      await rpc(chain, 'evm_setAutomine', [true]);
      await rpc(chain, 'evm_setIntervalMining', [1]);
      const settled = await waitFor('RFQ ended', () => taker.client.getRfq(rfqId), (r) => r.status !== 'QUOTED');
      assert.equal(settled.status, 'SETTLED', JSON.stringify(settled));
      assert.deepEqual(await balanceOf(taker.client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '1992.5', locked: '0', total: '1992.5' });
      assert.deepEqual(await balanceOf(taker.client, 'ETH'), { token: 'ETH', rail: 'EVM', available: '1', locked: '0', total: '1' });
      assert.deepEqual((await h.admin.invariants()).violations, []);
    });
  });
}
