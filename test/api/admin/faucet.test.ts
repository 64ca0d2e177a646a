/** POST /admin/v1/devnet/faucet: mints on-chain in the embedded stack, refused elsewhere. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseUnits } from 'viem';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { startTestChain, testAccount, type TestChain } from '../../helpers/chain.ts';

for (const backend of backends()) {
  describe(`devnet faucet [${backend}]`, () => {
    let chain: TestChain;
    let embedded: Harness;
    let production: Harness;
    before(async () => {
      chain = await startTestChain();
      embedded = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, embedded: true });
      production = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses });
    });
    after(async () => {
      await embedded?.close();
      await production?.close();
      await chain?.stop();
    });

    it('mints the exact amount on-chain and answers with the mined txHash', async () => {
      const to = testAccount().address;
      const { txHash } = await embedded.admin.faucet({ address: to, token: 'USDC', amount: '1234.567891' });
      assert.match(txHash, /^0x[0-9a-f]{64}$/);
      assert.equal(await chain.balanceOf('USDC', to), parseUnits('1234.567891', 6));
      await embedded.admin.faucet({ address: to, token: 'ETH', amount: '0.000000000000000001' });
      assert.equal(await chain.balanceOf('ETH', to), 1n);
    });

    it('mints concurrently requested amounts, every one (one nonce each, not two mints on one)', async () => {
      const to = testAccount().address;
      const amounts = ['1', '2', '3', '4', '5', '6'];
      const answers = await Promise.all(amounts.map((amount) => embedded.admin.faucet({ address: to, token: 'USDC', amount })));
      assert.equal(new Set(answers.map((a) => a.txHash)).size, amounts.length);
      assert.equal(await chain.balanceOf('USDC', to), parseUnits('21', 6));
    });

    it('refuses bad amounts and unknown tokens', async () => {
      const to = testAccount().address;
      const precise = await rejects(embedded.admin.faucet({ address: to, token: 'USDC', amount: '1.0000001' }), 400, 'AMOUNT_OVER_PRECISE');
      assert.equal(precise.details?.maxDecimals, 6);
      await rejects(embedded.admin.faucet({ address: to, token: 'USDC', amount: '1e3' }), 400, 'INVALID_REQUEST');
      await rejects(embedded.admin.faucet({ address: to, token: 'DOGE', amount: '1' }), 400, 'TOKEN_NOT_FOUND');
      await rejects(embedded.admin.faucet({ address: 'nope', token: 'USDC', amount: '1' }), 400, 'INVALID_REQUEST');
      assert.equal(await chain.balanceOf('USDC', to), 0n);
    });

    it('is refused outside the embedded stack, and without the operator token', async () => {
      const to = testAccount().address;
      await rejects(production.admin.faucet({ address: to, token: 'USDC', amount: '1' }), 503, 'NOT_AVAILABLE');
      await rejects(embedded.admin.http.send('POST', '/admin/v1/devnet/faucet', { body: { address: to, token: 'USDC', amount: '1' } }), 401, 'ADMIN_UNAUTHORIZED');
      assert.equal(await chain.balanceOf('USDC', to), 0n);
    });
  });
}
