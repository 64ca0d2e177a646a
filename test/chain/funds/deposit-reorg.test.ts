/**
 * A deposit seen at the head (PENDING) whose block is reorganised away ends FAILED once the
 * follower's final chain passes its block without it, and is never credited.
 * The reorganisation is an anvil snapshot taken before the deposit and reverted after the head
 * scanner saw it, then new blocks mined on the other branch; the follower only reads blocks with
 * `confirmations` on top, so it never booked the vanished block. A transfer
 * mined afterwards is a new deposit, credited once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseUnits } from 'viem';
import { backends, createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { startTestChain, type TestChain } from '../../helpers/chain.ts';
import { balanceOf, deposits, rpc, settledInvariants, waitFor, wallet } from './helpers.ts';

const USDC = (n: string) => parseUnits(n, 6);
/** Deep enough that the deposit's block is still above the follower's cursor when it is reverted. */
const CONFIRMATIONS = 12;

for (const backend of backends()) {
  describe(`deposit on a reorganised block (${backend})`, () => {
    let chain: TestChain;
    let database: TestDatabase;
    let h: Harness;

    before(async () => {
      chain = await startTestChain({ confirmations: CONFIRMATIONS });
      database = await createTestDatabase(backend);
      h = await startHarness(backend, { database, chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses });
    });
    after(async () => {
      await h?.close();
      await database?.drop();
      await chain?.stop();
    });

    it('PENDING at the head, its block reorganised away: FAILED once final, never credited; the next deposit is credited', async () => {
      const user = await wallet(h, chain);
      await chain.mint('USDC', user.account.address, USDC('8'));
      const snapshot = await rpc<string>(chain, 'evm_snapshot');
      const txHash = await chain.transfer(user.account, 'USDC', chain.custody, USDC('8'));
      const pending = await waitFor('PENDING at the head', () => deposits(user.client), (p) => p.items.some((d) => d.txHash === txHash.toLowerCase()));
      assert.equal(pending.items.find((d) => d.txHash === txHash.toLowerCase())!.status, 'PENDING');
      const cursor = (await h.node.store.db.selectFrom('chain_cursors').select('block_number').where('name', '=', 'main').executeTakeFirstOrThrow()).block_number;
      const receipt = await rpc<{ blockNumber: string }>(chain, 'eth_getTransactionReceipt', [txHash]);
      assert.ok(Number(receipt.blockNumber) > cursor, 'the follower has not booked the deposit block');

      assert.equal(await rpc<boolean>(chain, 'evm_revert', [snapshot]), true);
      assert.equal(await rpc(chain, 'eth_getTransactionReceipt', [txHash]), null, 'the transfer is gone from the chain');
      // The other branch grows past the deposit's height and becomes final (interval mining goes on).
      const failed = await waitFor('FAILED', () => deposits(user.client), (p) => p.items.find((d) => d.txHash === txHash.toLowerCase())?.status === 'FAILED');
      assert.equal(failed.items.length, 1);
      assert.equal(await balanceOf(user.client, 'USDC'), undefined, 'never credited');

      // The user's tokens are still theirs on-chain (the transfer never happened). A new transfer
      // (another amount: the same one could re-create the very same signed transaction, which is
      // the same deposit and would complete it) is credited once.
      assert.equal(await chain.balanceOf('USDC', user.account.address), USDC('8'));
      const again = await chain.transfer(user.account, 'USDC', chain.custody, USDC('5'));
      await waitFor('credited', () => balanceOf(user.client, 'USDC'), (b) => b?.total === '5');
      const all = (await deposits(user.client)).items.map((d) => [d.txHash, d.status]).sort();
      assert.deepEqual(all, [[txHash.toLowerCase(), 'FAILED'], [again.toLowerCase(), 'COMPLETED']].sort());
      await settledInvariants(h, chain);
    });
  });
}
