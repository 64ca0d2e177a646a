/**
 * Deposits, withdrawals and promised-mode settlement on a devnet, over the real HTTP API, on each
 * store backend. Funds come only from real deposits, so the on-chain custody check
 * (GET /admin/v1/invariants) must hold after every test.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { rfqMakerWrapperAbi } from '../../../src/chain/artifacts/index.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import { connectSigner } from '../../../src/chain/clients.ts';
import { quoteHash, quoteNonce, rfqPermitTypedData } from '../../../src/chain/permit.ts';
import { backends } from '../../helpers/backends.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from '../../helpers/harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { startTestChain, testAccount, type TestChain } from '../../helpers/chain.ts';
import {
  balanceOf, depositOnChain, deposits, requestWithdrawal, rpc, settledInvariants, waitFor, wallet, withdrawal, withdrawals, type Page,
} from './helpers.ts';

const USDC = (n: string) => parseUnits(n, 6);

for (const backend of backends()) {
  describe(`funds on-chain (${backend})`, () => {
    let chain: TestChain;
    let h: Harness;
    before(async () => {
      chain = await startTestChain({ confirmations: 2 });
      h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses });
    });
    after(async () => {
      await h?.close();
      await chain?.stop();
    });

    it('a deposit appears PENDING at the head, then COMPLETED and credited once final', async () => {
      const { client, account } = await wallet(h, chain);
      await chain.mint('USDC', account.address, USDC('125'));
      // Hold blocks so the deposit's block stays one short of the confirmation depth.
      await rpc(chain, 'evm_setIntervalMining', [0]);
      await rpc(chain, 'evm_setAutomine', [true]);
      try {
        const txHash = await chain.transfer(account, 'USDC', chain.custody, USDC('125'));
        const pending = await waitFor('PENDING deposit', () => deposits(client), (p) => p.items.length === 1);
        assert.deepEqual({ ...pending.items[0], depositId: undefined, createdAt: undefined, updatedAt: undefined }, { depositId: undefined, token: 'USDC', amount: '125', status: 'PENDING', txHash, createdAt: undefined, updatedAt: undefined });
        assert.match(pending.items[0]!.depositId, /^dep_[0-9a-f]{8}-[0-9a-f]{4}-7/);
        assert.equal(await balanceOf(client, 'USDC'), undefined);
        await rpc(chain, 'evm_mine');
      } finally {
        await rpc(chain, 'evm_setIntervalMining', [1]);
      }
      const done = await waitFor('COMPLETED deposit', () => deposits(client), (p) => p.items[0]?.status === 'COMPLETED');
      assert.equal(done.items.length, 1);
      assert.equal(done.items[0]!.amount, '125');
      assert.deepEqual(await balanceOf(client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '125', locked: '0', total: '125' });
      const ledger = await client.ledger();
      assert.deepEqual(ledger.entries.map((e) => [e.token, e.delta, e.source]), [['USDC', '125', 'DEPOSIT']]);
      await settledInvariants(h, chain);
    });

    it('pages deposits newest first with an opaque cursor', async () => {
      const { client, account } = await wallet(h, chain);
      for (const n of ['1', '2', '3']) await depositOnChain(chain, account, 'USDC', USDC(n));
      await waitFor('three credited', () => deposits(client), (p) => p.items.filter((d) => d.status === 'COMPLETED').length === 3);
      const first = await deposits(client, { limit: 2 });
      assert.deepEqual(first.items.map((d) => d.amount), ['3', '2']);
      assert.equal(first.hasMore, true);
      const second = await deposits(client, { limit: 2, cursor: first.nextCursor! });
      assert.deepEqual(second.items.map((d) => d.amount), ['1']);
      assert.equal(second.hasMore, false);
      await rejects(deposits(client, { cursor: 'garbage' }), 400, 'INVALID_REQUEST');
      await settledInvariants(h, chain);
    });

    it('a transfer from an address with no account is credited to nobody and listed for the operator', async () => {
      const stranger = testAccount();
      await chain.fundGas(stranger.address);
      const txHash = await depositOnChain(chain, stranger, 'USDC', USDC('7'));
      const listed = await waitFor('unattributed', () => h.admin.call<Page<Record<string, unknown>>>('GET', '/deposits/unattributed'), (p) => p.items.some((d) => d['txHash'] === txHash && d['status'] === 'COMPLETED'));
      const row = listed.items.find((d) => d['txHash'] === txHash)!;
      assert.equal(row['fromAddress'], stranger.address);
      assert.equal(row['amount'], '7');
      const accounts = await h.node.store.db.selectFrom('accounts').select('id').where('address', '=', stranger.address).execute();
      assert.equal(accounts.length, 0);
      await settledInvariants(h, chain);
    });

    it('a transfer into custody inside a settlement transaction is not a deposit', async () => {
      const { client, account: maker } = await wallet(h, chain);
      const wrapper = await chain.wrapperFor(maker.address);
      const amount = USDC('5');
      await chain.mint('USDC', maker.address, amount);
      await chain.approve(maker, 'USDC', wrapper);
      // The wrapper delivers 5 USDC to custody and Permit2 pays 5 USDC back: custody is unchanged
      // on-chain, and the delivery sits in a transaction carrying RfqSettled.
      const custody = privateKeyToAccount(chain.stack.settings.custodyKey);
      const quoteId = `qt_funds_${Date.now()}`;
      const deadline = BigInt(Math.floor(Date.now() / 1000) + 600);
      const usdc = chain.token('USDC');
      const signature = await custody.signTypedData(rfqPermitTypedData({
        chainId: h.node.context.chain!.chainId,
        permit2Address: chain.stack.settings.permit2Address,
        token: usdc,
        amount,
        spender: wrapper,
        nonce: quoteNonce(quoteId),
        deadline,
        witness: { quoteHash: quoteHash(quoteId), deliverToken: usdc, deliverAmount: amount, deliverTo: chain.custody },
      }));
      const signer = await connectSigner(chain.rpcUrl, (maker as typeof maker & { __key: `0x${string}` }).__key);
      const hash = await signer.walletClient.writeContract({
        address: wrapper,
        abi: rfqMakerWrapperAbi,
        functionName: 'settle',
        args: [{ permitted: { token: usdc, amount }, nonce: quoteNonce(quoteId), deadline }, usdc, amount, quoteHash(quoteId), signature],
      });
      const receipt = await signer.publicClient.waitForTransactionReceipt({ hash });
      assert.equal(receipt.status, 'success');
      // A plain deposit after it proves the follower has passed the settlement's block.
      const marker = await depositOnChain(chain, maker, 'USDC', USDC('1'));
      const seen = await waitFor('marker deposit', () => deposits(client), (p) => p.items.some((d) => d.txHash === marker && d.status === 'COMPLETED'));
      assert.deepEqual(seen.items.map((d) => d.txHash), [marker]);
      const rows = await h.node.store.db.selectFrom('deposits').select('id').where('tx_hash', '=', hash.toLowerCase()).execute();
      assert.equal(rows.length, 0);
      await settledInvariants(h, chain);
    });

    it('withdrawal: locked, approved, broadcast, confirmed, debited; tokens arrive on-chain', async () => {
      const { client, account } = await wallet(h, chain);
      await depositOnChain(chain, account, 'USDC', USDC('100'));
      await waitFor('credited', () => balanceOf(client, 'USDC'), (b) => b?.total === '100');
      const created = await requestWithdrawal(client, { token: 'USDC', amount: '40' });
      assert.equal(created.status, 'PENDING');
      assert.match(created.withdrawalId, /^wd_/);
      assert.deepEqual(await balanceOf(client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '60', locked: '40', total: '100' });
      const listed = await h.admin.call<Page<{ withdrawalId: string; status: string }>>('GET', '/withdrawals', undefined, { status: 'PENDING' });
      assert.ok(listed.items.some((w) => w.withdrawalId === created.withdrawalId));
      assert.equal(typeof listed.hasMore, 'boolean');
      const approved = await h.admin.call<{ status: string }>('POST', `/withdrawals/${created.withdrawalId}/approve`);
      assert.equal(approved.status, 'APPROVED');
      const done = await waitFor('COMPLETED', () => withdrawal(client, created.withdrawalId), (w) => w.status === 'COMPLETED');
      assert.match(done.txHash!, /^0x[0-9a-f]{64}$/);
      assert.equal(done.toAddress, account.address);
      assert.equal(done.failureReason, null);
      assert.equal(await chain.balanceOf('USDC', account.address), USDC('40'));
      const receipt = await rpc<{ status: string; from: string }>(chain, 'eth_getTransactionReceipt', [done.txHash]);
      assert.equal(receipt.status, '0x1');
      assert.equal(receipt.from.toLowerCase(), chain.custody.toLowerCase());
      assert.deepEqual(await balanceOf(client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '60', locked: '0', total: '60' });
      const ledger = await client.ledger();
      assert.deepEqual(ledger.entries.map((e) => [e.delta, e.source]), [['-40', 'WITHDRAWAL'], ['100', 'DEPOSIT']]);
      assert.deepEqual((await withdrawals(client)).items.map((w) => w.withdrawalId), [created.withdrawalId]);
      await rejects(h.admin.call('POST', `/withdrawals/${created.withdrawalId}/approve`), 409, 'WITHDRAWAL_NOT_PENDING');
      await settledInvariants(h, chain);
    });

    it('reject releases the lock with a reason; approve or reject of a decided one is 409', async () => {
      const { client, account } = await wallet(h, chain);
      await depositOnChain(chain, account, 'USDC', USDC('20'));
      await waitFor('credited', () => balanceOf(client, 'USDC'), (b) => b?.total === '20');
      const { withdrawalId } = await requestWithdrawal(client, { token: 'USDC', amount: '15' });
      const rejected = await h.admin.call<{ status: string; failureReason: string }>('POST', `/withdrawals/${withdrawalId}/reject`, { reason: 'address under review' });
      assert.deepEqual([rejected.status, rejected.failureReason], ['FAILED', 'address under review']);
      assert.deepEqual(await balanceOf(client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '20', locked: '0', total: '20' });
      await rejects(h.admin.call('POST', `/withdrawals/${withdrawalId}/approve`), 409, 'WITHDRAWAL_NOT_PENDING');
      await rejects(h.admin.call('POST', `/withdrawals/${withdrawalId}/reject`, {}), 409, 'WITHDRAWAL_NOT_PENDING');
      await rejects(h.admin.call('POST', `/withdrawals/${withdrawalId}/resolve`, { outcome: 'FAILED' }), 409, 'WITHDRAWAL_NOT_UNRESOLVED');
      await rejects(h.admin.call('POST', '/withdrawals/wd_00000000-0000-7000-8000-000000000000/approve'), 404, 'NOT_FOUND');
      assert.equal(await chain.balanceOf('USDC', account.address), 0n);
      await settledInvariants(h, chain);
    });

    it('the same idempotencyKey replays; a different body with it is 409; over-withdrawal is INSUFFICIENT_BALANCE', async () => {
      const { client, account } = await wallet(h, chain);
      const other = await wallet(h, chain);
      await depositOnChain(chain, account, 'USDC', USDC('10'));
      await waitFor('credited', () => balanceOf(client, 'USDC'), (b) => b?.total === '10');
      await rejects(requestWithdrawal(client, { token: 'USDC', amount: '10.000001' }), 400, 'INSUFFICIENT_BALANCE');
      await rejects(requestWithdrawal(client, { token: 'USDC', amount: '0' }), 400, 'INVALID_REQUEST');
      await rejects(requestWithdrawal(client, { token: 'DOGE', amount: '1' }), 400, 'TOKEN_NOT_FOUND');
      const first = await requestWithdrawal(client, { token: 'USDC', amount: '6', idempotencyKey: 'k-1' });
      const again = await requestWithdrawal(client, { token: 'USDC', amount: '6', idempotencyKey: 'k-1' });
      assert.deepEqual(again, first);
      await rejects(requestWithdrawal(client, { token: 'USDC', amount: '5', idempotencyKey: 'k-1' }), 409, 'IDEMPOTENCY_KEY_REUSED');
      assert.equal((await withdrawals(client)).items.length, 1);
      assert.deepEqual(await balanceOf(client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '4', locked: '6', total: '10' });
      // Another account's withdrawal reads as not found.
      await rejects(withdrawal(other.client, first.withdrawalId), 404, 'NOT_FOUND');
      await h.admin.call('POST', `/withdrawals/${first.withdrawalId}/reject`, {});
      await settledInvariants(h, chain);
    });

    /** A taker with USDC deposited and a promised-mode maker, both signed in; an RFQ accepted on the maker's quote. */
    async function promisedTrade(options: { headroomSecs: number; windowMs: number; price?: string; fundedByAdjustment?: string }) {
      await h.admin.putSettings({ settlementHeadroomSecs: options.headroomSecs });
      const taker = await wallet(h, chain);
      if (options.fundedByAdjustment) {
        await h.fund(taker.account.address, { USDC: options.fundedByAdjustment });
      } else {
        await depositOnChain(chain, taker.account, 'USDC', USDC('3000'));
        await waitFor('taker credited', () => balanceOf(taker.client, 'USDC'), (b) => b?.total === '3000');
      }
      const makerAccount = testAccount();
      await chain.fundGas(makerAccount.address);
      await h.admin.putMaker(makerAccount.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['promised'] });
      const maker = new RfqClient(h.url);
      await maker.signIn(makerAccount);
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', windowMs: options.windowMs });
      const { quoteId } = await maker.submitQuote({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: options.price ?? '2000' } });
      await taker.client.accept(rfqId, { quoteId });
      const selected = await waitFor('maker sees SELECTED', () => maker.makerQuotes(), (p) => p.items.some((q) => q.quoteId === quoteId && q.status === 'SELECTED'));
      const quote = selected.items.find((q) => q.quoteId === quoteId)! as unknown as Record<string, unknown>;
      return { taker, maker, makerAccount, rfqId, quoteId, quote };
    }

    it('promised: the maker delivers inside its window, the RFQ settles on the delivery, the service pays the maker', async () => {
      const { taker, makerAccount, rfqId, quote } = await promisedTrade({ headroomSecs: 60, windowMs: 10_000 });
      const rfq = await taker.client.getRfq(rfqId);
      assert.equal(quote['permitSignature'], undefined);
      assert.equal(quote['spender'], undefined);
      assert.equal(quote['deliveryDeadline'], rfq.settlementDeadline);
      assert.equal(quote['windowEndsAt'], rfq.settlementDeadline * 1000);
      assert.ok((quote['windowStartsAt'] as number) <= (quote['windowEndsAt'] as number));
      // takerTotal = 2000 + 0.25% fee = 2005 USDC locked.
      assert.deepEqual(await balanceOf(taker.client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '995', locked: '2005', total: '3000' });
      await chain.mint('ETH', makerAccount.address, parseUnits('1', 18));
      const delivery = await chain.transfer(makerAccount, 'ETH', chain.custody, parseUnits('1', 18));
      const settled = await waitFor('SETTLED', () => taker.client.getRfq(rfqId), (r) => r.status === 'SETTLED');
      assert.equal(settled.txHash, delivery);
      assert.deepEqual(await balanceOf(taker.client, 'ETH'), { token: 'ETH', rail: 'EVM', available: '1', locked: '0', total: '1' });
      assert.deepEqual(await balanceOf(taker.client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '995', locked: '0', total: '995' });
      await waitFor('payout on-chain', () => chain.balanceOf('USDC', makerAccount.address), (b) => b === USDC('2000'));
      // The delivery is settlement, not a deposit of the maker's.
      const makerDeposits = await h.node.store.db.selectFrom('deposits').select('id').where('from_address', '=', makerAccount.address).execute();
      assert.equal(makerDeposits.length, 0);
      const payout = await waitFor('payout confirmed', () => h.node.store.db.selectFrom('custody_transfers').selectAll().where('purpose', '=', 'payout').where('owner_id', '=', quote['quoteId'] as string).executeTakeFirst(), (t) => t?.status === 'CONFIRMED');
      assert.equal(payout!.amount, USDC('2000'));
      await settledInvariants(h, chain);
    });

    it('promised: a payout that reverts stays owed, is listed, and is paid exactly once when the operator retries it', async () => {
      // The taker is funded on the ledger only, and custody holds far less USDC than the payout:
      // the payout transfer reverts on-chain, and the service's debt stays in maker_settlement.
      const price = '5000000';
      const { taker, makerAccount, rfqId, quoteId } = await promisedTrade({ headroomSecs: 60, windowMs: 10_000, price, fundedByAdjustment: '6000000' });
      const payouts = () => h.node.store.db.selectFrom('custody_transfers').select(['id', 'status']).where('purpose', '=', 'payout').where('owner_id', '=', quoteId).orderBy('created_at').execute();
      const owedToMakers = async () => BigInt((await h.node.store.db.selectFrom('ledger_postings').select((eb) => eb.fn.sum<string>('delta').as('total')).where('book', '=', 'maker_settlement').where('token', '=', 'USDC').executeTakeFirst())?.total ?? 0);
      await chain.mint('ETH', makerAccount.address, parseUnits('1', 18));
      await chain.transfer(makerAccount, 'ETH', chain.custody, parseUnits('1', 18));
      await waitFor('SETTLED', () => taker.client.getRfq(rfqId), (r) => r.status === 'SETTLED');
      await waitFor('payout reverted', payouts, (rows) => rows[0]?.status === 'REVERTED');
      assert.equal(await chain.balanceOf('USDC', makerAccount.address), 0n);
      assert.equal(await owedToMakers(), USDC(price), 'the debt stays in maker_settlement');

      const unpaid = (await h.admin.unpaidPayouts()).items.filter((t) => t['ownerId'] === quoteId);
      assert.deepEqual(unpaid.map((t) => [t['status'], t['amount'], t['toAddress'], t['token']]), [['REVERTED', price, makerAccount.address, 'USDC']]);
      // The CLI lists it too (a child process: this process serves the node).
      const cli = await promisify(execFile)(process.execPath, [new URL('../../../src/runtime/admin-cli.ts', import.meta.url).pathname, '--url', h.url, '--token', ADMIN_TOKEN, '--compact', 'payouts', 'unpaid']);
      assert.ok((JSON.parse(cli.stdout) as { items: Array<{ ownerId: string }> }).items.some((t) => t.ownerId === quoteId));

      // The operator funds custody, then queues the payout again; a second retry is refused.
      await chain.mint('USDC', chain.custody, USDC(price));
      const retried = await h.admin.retryPayout(quoteId);
      assert.equal(retried['status'], 'QUEUED');
      await rejects(h.admin.retryPayout(quoteId), 409, 'PAYOUT_NOT_OWED');
      await waitFor('retried payout confirmed', payouts, (rows) => rows.length === 2 && rows[1]!.status === 'CONFIRMED');
      assert.equal(await chain.balanceOf('USDC', makerAccount.address), USDC(price), 'paid exactly once');
      assert.equal(await owedToMakers(), 0n);
      assert.ok(!(await h.admin.unpaidPayouts()).items.some((t) => t['ownerId'] === quoteId));
      await rejects(h.admin.retryPayout(quoteId), 409, 'PAYOUT_NOT_OWED');
      await rejects(h.admin.retryPayout('qt_none'), 404, 'NOT_FOUND');
      await settledInvariants(h, chain);
    });

    it('promised: no delivery by the deadline (final chain time) fails the RFQ and releases the lock', async () => {
      const { taker, maker, rfqId, quoteId } = await promisedTrade({ headroomSecs: 1, windowMs: 3000 });
      const failed = await waitFor('FAILED', () => taker.client.getRfq(rfqId), (r) => r.status === 'FAILED');
      assert.equal(failed.failureCode, 'SETTLEMENT_FAILED');
      assert.deepEqual(await balanceOf(taker.client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '3000', locked: '0', total: '3000' });
      const quotes = await maker.makerQuotes();
      assert.equal(quotes.items.find((q) => q.quoteId === quoteId)?.status, 'FAILED');
      // The missed delivery counts against the maker (suspension policy).
      const failures = await h.node.store.db.selectFrom('maker_failures').select(['quote_id', 'reason']).where('quote_id', '=', quoteId).execute();
      assert.deepEqual(failures, [{ quote_id: quoteId, reason: 'notDelivered' }]);
      await h.admin.putSettings({ settlementHeadroomSecs: 60 });
      await settledInvariants(h, chain);
    });
  });
}
