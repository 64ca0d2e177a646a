/**
 * Every typed v1 REST call of RfqClient that the server serves, against a real node: each call
 * reaches its route and the response has the declared shape. (Deposits, withdrawals and
 * `GET /v1/rfq/network` are typed but not served on this branch, so not tested here.)
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { backends } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { rejects } from '../helpers/rejects.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';

for (const backend of backends()) {
  describe(`RfqClient REST calls [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => h.close());

    it('signs in, lists and revokes keys, reads the server time', async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      const client = new RfqClient(h.url);
      const { nonce, expiresAt } = await client.challenge();
      assert.match(nonce, /^[0-9a-f-]{36}$/);
      assert.ok(expiresAt > Date.now());
      const login = await client.signIn(account, { expiresInSecs: 3600 });
      assert.equal(login.account, account.address);
      assert.deepEqual(client.credentials, { accessKey: login.accessKey, secret: login.secret });
      assert.ok(Math.abs(login.expiresAt - Date.now() - 3_600_000) < 60_000);

      const second = new RfqClient(h.url);
      await second.signIn(account);
      const { keys } = await client.listApiKeys();
      assert.deepEqual(keys.map((k) => k.accessKey), [second.credentials!.accessKey, login.accessKey], 'newest first');
      assert.deepEqual(await client.revokeApiKey(second.credentials!.accessKey), { accessKey: second.credentials!.accessKey, revoked: true });
      await rejects(second.balances(), 401, 'UNAUTHENTICATED');

      const before = Date.now();
      const { serverTime } = await new RfqClient(h.url).time();
      assert.ok(serverTime >= before - 1000 && serverTime <= Date.now() + 1000);
    });

    it('reads instruments, balances and the ledger', async () => {
      const { client, account } = await h.newUser();
      const { instruments } = await client.instruments();
      const eth = instruments.find((i) => i.instrumentId === 'ETH-USDC-SPOT')!;
      assert.deepEqual(eth, { instrumentId: 'ETH-USDC-SPOT', base: 'ETH', quote: 'USDC', type: 'SPOT', instrumentType: 'SPOT', takerFeeTenthBp: 250, minQuoteNotional: '10' });
      await h.fund(account.address, { USDC: '12.5', ETH: '1' });
      const { balances } = await client.balances();
      assert.deepEqual(balances.find((b) => b.token === 'USDC'), { token: 'USDC', rail: 'EVM', available: '12.5', locked: '0', total: '12.5' });
      const page = await client.ledger({ limit: 1 });
      assert.equal(page.entries.length, 1);
      assert.equal(page.hasMore, true);
      const rest = await client.ledger({ cursor: page.nextCursor! });
      assert.equal(rest.hasMore, false);
      assert.deepEqual([...page.entries, ...rest.entries].map((e) => [e.token, e.delta, e.source, e.rail]).sort(), [['ETH', '1', 'ADJUSTMENT', 'EVM'], ['USDC', '12.5', 'ADJUSTMENT', 'EVM']]);
    });

    it('runs the taker and maker calls of an RFQ: create, list, quote, read, accept, cancel', async () => {
      const taker = await h.newUser();
      await h.fund(taker.account.address, { USDC: '10000' });
      const maker = await h.newMaker();
      const created = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '5000', windowMs: 10_000, idempotencyKey: randomUUID() });
      assert.match(created.rfqId, /^rfq_/);
      assert.equal(created.status, 'PENDING');

      const open = await maker.client.openRfqs();
      assert.ok(open.items.some((r) => r.id === created.rfqId));
      const submitted = await maker.client.submitQuote({ rfqId: created.rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '3000' } });
      assert.deepEqual([submitted.status, submitted.version], ['SUBMITTED', 1]);
      const mine = await maker.client.makerQuotes({ status: ['SUBMITTED'] });
      assert.equal(mine.items.find((q) => q.quoteId === submitted.quoteId)?.settlementMode, 'permit2');

      const quotes = await taker.client.rfqQuotes(created.rfqId, { status: 'SUBMITTED' });
      assert.deepEqual(quotes.items.map((q) => [q.quoteId, q.takerTotal]), [[submitted.quoteId, '3007.5']]);
      assert.equal((await taker.client.getQuote(submitted.quoteId)).version, 1);
      assert.deepEqual(await taker.client.accept(created.rfqId, { quoteId: submitted.quoteId, expectedVersion: 1 }), { rfqId: created.rfqId, quoteId: submitted.quoteId, status: 'QUOTED' });
      const rfq = await taker.client.getRfq(created.rfqId);
      assert.deepEqual([rfq.status, rfq.quoteLimit, rfq.baseQty], ['QUOTED', '5000', '1']);
      const listed = await taker.client.listRfqs({ status: 'QUOTED' });
      assert.deepEqual(listed.items.map((r) => r.id), [created.rfqId]);

      const other = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '5000', windowMs: 10_000 });
      const otherQuote = await maker.client.submitQuote({ rfqId: other.rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '3100' } });
      assert.equal((await maker.client.cancelQuote(otherQuote.quoteId)).status, 'CANCELLED');
      const cancelled = await taker.client.cancelRfq(other.rfqId);
      assert.equal(cancelled.status, 'CANCELLED');
      await rejects(taker.client.getRfq('rfq_does_not_exist'), 404, 'NOT_FOUND');
    });
  });
}
