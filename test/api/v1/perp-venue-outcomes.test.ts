/**
 * Outcomes as the venue means them (DESIGN.md 13), against the simulator's fault injection, on
 * both stores: HTTP 422 and 429 on the taker's order mean not placed (EXECUTION_NOT_FILLED at
 * once, never EXECUTION_UNCONFIRMED); `Invalid nonce: duplicate nonce` on the taker's IOC is
 * resolved by its cloid (placed and filled: SETTLED; absent: not filled); on the maker's order it
 * is a maker fault only when the look-up shows the order absent. And the taker's order as the
 * venue's Python SDK posts it: `r` without its leading zeros and `vaultAddress: null,
 * expiresAfter: null` accepted, the trade settles; a `signature.v` outside 27/28 or an `r` that
 * is not 0x-hex is a schema error, 400 before anything is checked.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../helpers/eventually.ts';
import { backends } from '../../helpers/backends.ts';
import { rejects } from '../../helpers/rejects.ts';
import { cloidOfOrder, ended, PerpFixture, takerOrder, type Signed } from '../../helpers/perp.ts';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

const DUPLICATE = 'Invalid nonce: duplicate nonce';

/** A taker order whose `r` starts with a zero nibble, written as the Python SDK writes it (no leading zeros). */
async function pythonStyleOrder(account: PrivateKeyAccount): Promise<Signed & { vaultAddress: null; expiresAfter: null }> {
  for (let attempt = 0; attempt < 1_000; attempt++) {
    const order = await takerOrder(account, 'BUY', '0.1', '3500.1');
    if (!order.signature.r.startsWith('0x0')) continue;
    const signature = { r: `0x${order.signature.r.slice(2).replace(/^0+/, '')}`, s: `0x${order.signature.s.slice(2).replace(/^0+/, '')}`, v: order.signature.v };
    return { action: order.action, nonce: order.nonce, signature, vaultAddress: null, expiresAfter: null };
  }
  throw new Error('no signature with a leading zero in 1000 tries');
}

for (const backend of backends()) {
  describe(`perp outcomes as the venue means them [${backend}]`, () => {
    let f: PerpFixture;
    before(async () => {
      f = await PerpFixture.start(backend);
    });
    after(() => f?.close());

    const makerFailures = async (quoteId: string) => (await f.h.node.store.db.selectFrom('maker_failures').select('reason').where('quote_id', '=', quoteId).execute()).map((r) => r.reason);
    const sends = async (rfqId: string, kind: string) => (await f.callKinds(rfqId)).filter((c) => c.kind === kind).length;

    /** One auction won by a fresh maker, and the taker's order for it with `effect` on its send. */
    async function acceptWith(effect: Record<string, unknown>) {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      const order = await takerOrder(taker.account, 'BUY', '0.1', '3500.1');
      await f.control.addFault({ match: { action: 'order', cloid: cloidOfOrder(order) }, effect: effect as never, count: 1 });
      const started = Date.now();
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: order });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended, 10_000);
      return { rfq, rfqId, quoteId: quoteIds[0]!, taker, elapsedMs: Date.now() - started };
    }

    const httpRefusalCase = (status: number) =>
      it(`HTTP ${status} on the taker's order: not placed, EXECUTION_NOT_FILLED without waiting out the resolve window`, async () => {
        const { rfq, rfqId } = await acceptWith({ type: 'http', status });
        assert.equal(rfq.failureCode, 'EXECUTION_NOT_FILLED', JSON.stringify(rfq));
        assert.equal(await sends(rfqId, 'takerOrder'), 1, 'sent once');
        assert.equal(await sends(rfqId, 'orderStatus'), 0, JSON.stringify(await f.callKinds(rfqId)));
      });
    httpRefusalCase(422);

    it('duplicate nonce on the taker\u2019s IOC that the venue had placed: resolved by cloid, SETTLED with its fill', async () => {
      const { rfq, quoteId, taker } = await acceptWith({ type: 'reject', message: DUPLICATE, applied: true });
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.equal((await taker.client.getQuote(quoteId) as unknown as Record<string, unknown>)['perpFilledSize'], '0.1');
    });

    it('duplicate nonce on the taker\u2019s IOC the venue does not know: not placed, EXECUTION_NOT_FILLED', async () => {
      const { rfq } = await acceptWith({ type: 'reject', message: DUPLICATE });
      assert.equal(rfq.failureCode, 'EXECUTION_NOT_FILLED', JSON.stringify(rfq));
      assert.match(rfq.failureReason ?? '', /no order with its cloid/);
    });

    it('duplicate nonce on the maker\u2019s order that rests: no maker fault, the trade settles', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      await f.control.addFault({ match: { action: 'order', user: maker.account.address }, effect: { type: 'reject', message: DUPLICATE, applied: true }, count: 1 });
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended, 10_000);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.deepEqual(await makerFailures(quoteIds[0]!), []);
    });

    it('duplicate nonce on the maker\u2019s order the venue does not know: a maker fault, the taker\u2019s order never sent', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      await f.control.addFault({ match: { action: 'order', user: maker.account.address }, effect: { type: 'reject', message: DUPLICATE }, count: 1 });
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended, 10_000);
      assert.equal(rfq.failureCode, 'EXECUTION_NOT_FILLED', JSON.stringify(rfq));
      const failures = await makerFailures(quoteIds[0]!);
      assert.equal(failures.length, 1);
      assert.match(failures[0]!, /duplicate nonce; the venue has no order with its cloid/);
      assert.equal(await sends(rfqId, 'takerOrder'), 0);
    });

    it('an unpadded r and null vaultAddress/expiresAfter: accepted, SETTLED', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      const order = await pythonStyleOrder(taker.account);
      assert.ok(order.signature.r.length < 66);
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: order });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended, 10_000);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
    });

    it('v outside 27/28, r not 0x-hex or longer than 64 digits: 400 before anything is checked', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      const good = await takerOrder(taker.account, 'BUY', '0.1', '3500.1');
      for (const [field, signature] of [
        ['perpTakerOrder.signature.v', { ...good.signature, v: 29 }],
        ['perpTakerOrder.signature.r', { ...good.signature, r: good.signature.r.slice(2) }],
        ['perpTakerOrder.signature.s', { ...good.signature, s: `0x1${good.signature.s.slice(2)}` }],
      ] as const) {
        const error = await rejects(taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: { ...good, signature } }), 400, 'INVALID_REQUEST');
        assert.deepEqual((error.details as { errors: { field: string }[] }).errors.map((e) => e.field), [field]);
      }
      assert.equal((await taker.client.getQuote(quoteIds[0]!)).status, 'SUBMITTED', 'the quote is still live');
      assert.equal((await taker.client.getRfq(rfqId)).status, 'PENDING');
      assert.equal((await f.callKinds(rfqId)).length, 0, 'nothing was recorded or sent');
    });

    it('a taker order signed by an unnamed API wallet (not in extraAgents) is recognised through userRole: SETTLED', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const agent = privateKeyToAccount(generatePrivateKey());
      await f.exchange(taker.account).approveAgent({ agentAddress: agent.address, agentName: null });
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(agent, 'BUY', '0.1', '3500.1') });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended, 10_000);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.ok((await f.callKinds(rfqId)).some((c) => c.kind === 'userRole'));
    });

    // Last: a 429 stops this node's venue requests for the backoff, as the venue asks, which would
    // hold up the tests after it.
    httpRefusalCase(429);
  });
}
