/**
 * `/v0` against the venue simulator: deposits by spotSend (credited once across a restart),
 * IOC orders that fill, partly fill or match nothing, a resting GTC order cancelled, a market
 * order, fills per order type, balances and locks after each, withdrawals (completed, CONFLICT,
 * refused, venue unreachable), every VALIDATION_ERROR case, and the invariants after each.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { parseAmount } from '../../../src/domain/money/index.ts';
import { startV0Stack, type V0Stack } from '../../helpers/v0.ts';
import { runV0Cli } from '../../../src/runtime/v0-cli.ts';

for (const backend of backends()) {
  describe(`/v0 trading on the venue (${backend})`, { timeout: 600_000 }, () => {
    let stack: V0Stack;
    before(async () => {
      stack = await startV0Stack(backend);
      // These cases count fills and price against a known book: on a moving book (realistic
      // profile) HYPE is held still, as the perp tests hold ETH (what other traders do to an
      // order is test/api/v1/perp-moving-book.test.ts's subject).
      await stack.simControl('/_sim/book', { coin: '@1', moving: false });
    });
    after(async () => stack?.close());

    async function funded(usdc: string, hype = '0'): Promise<{ account: PrivateKeyAccount; token: string }> {
      const account = privateKeyToAccount(generatePrivateKey());
      await stack.deposit(account, 'USDC', usdc);
      if (hype !== '0') await stack.deposit(account, 'HYPE', hype);
      const token = await stack.login(account);
      await stack.waitFor(async () => {
        const r = await stack.call('getBalances', {}, { token });
        return r.status === 200 && r.body.balances.length === (hype === '0' ? 1 : 2);
      }, 'deposits credited');
      return { account, token };
    }

    async function balance(token: string, symbol: string) {
      const r = await stack.call('getBalances', {}, { token, layout: 'flat' });
      return r.body.balances.find((b: { token: string }) => b.token === symbol) ?? { available: '0', locked: '0', total: '0' };
    }

    async function terminal(token: string, orderId: string) {
      return stack.waitFor(async () => {
        const r = await stack.call('getDelegatedOrder', { orderId }, { token });
        return ['filled', 'partially_filled', 'cancelled', 'expired', 'failed'].includes(r.body.order?.status) ? r.body.order : null;
      }, `order ${orderId} terminal`);
    }

    async function dordOf(token: string, clientOrderId: string): Promise<string> {
      const r = await stack.call('listDelegatedOrders', {}, { token });
      return r.body.orders.find((o: { clientOrderId: string }) => o.clientOrderId === clientOrderId).orderId;
    }

    async function assertInvariants() {
      await stack.settle();
      const result = await stack.invariants();
      assert.deepEqual(result.violations, []);
      assert.equal(result.ok, true);
    }

    it('credits a spotSend deposit once, however often the follower rereads the ledger (restart: v0-sigkill.test.ts)', async () => {
      const { account, token } = await funded('100');
      assert.equal((await balance(token, 'USDC')).available, '100000000');
      // Later passes reread the same ledger updates: nothing is credited twice.
      await stack.settle();
      await stack.settle();
      assert.equal((await balance(token, 'USDC')).available, '100000000');
      const count = await stack.harness.node.store.db.selectFrom('venue_deposits').select((eb) => eb.fn.countAll<string>().as('n')).where('from_address', '=', account.address).executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 1);
      await assertInvariants();
    });

    it('flat IOC buy that fills: balances, fee, fills and invariants', async () => {
      const { token } = await funded('200');
      const created = await stack.call('createOrder', { side: 'buy', orderType: 'limit', baseToken: 'HYPE', quoteToken: 'USDC', amount: '1', price: '41' }, { token, layout: 'flat' });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.match(created.body.orderId, /^0x[0-9a-f]{32}$/);
      const order = await terminal(token, await dordOf(token, created.body.orderId));
      assert.equal(order.status, 'filled');
      assert.equal(order.filledAmount, '100000000');
      assert.equal(order.remainingAmount, '0');
      assert.ok(BigInt(order.averageFillPrice) > 3_900_000_000n && BigInt(order.averageFillPrice) <= 4_100_000_000n);
      const hype = await balance(token, 'HYPE');
      // 1 HYPE less the 700 ppm taker fee.
      assert.equal(hype.available, String(100_000_000n - 70_000n));
      const usdc = await balance(token, 'USDC');
      assert.equal(usdc.locked, '0');
      assert.ok(BigInt(usdc.available) < 200_000_000n - 39_000_000n);
      const fills = await stack.call('listFills', {}, { token });
      assert.equal(fills.body.fills.length >= 1, true);
      assert.equal(fills.body.fills[0].orderType, 'limit');
      assert.equal(fills.body.fills[0].fee !== null, true);
      await assertInvariants();
    });

    it('an IOC that matches nothing expires; one larger than the book partly fills', async () => {
      const { token } = await funded('1000');
      const low = await stack.call('createOrder', { side: 'buy', orderType: 'limit', baseToken: 'HYPE', quoteToken: 'USDC', amount: '1', price: '30' }, { token });
      const expired = await terminal(token, await dordOf(token, low.body.orderId));
      assert.equal(expired.status, 'expired');
      assert.equal(expired.filledAmount, '0');
      assert.equal((await balance(token, 'USDC')).locked, '0');
      assert.equal((await balance(token, 'USDC')).available, '1000000000');

      // Only the first ask level is at or below this limit (levels are ~500 HYPE each).
      const book = await stack.simControl('/_sim/book', { coin: '@1', levels: 1, levelNotionalUsd: '200' });
      const bestAsk = book.levels[1][0].px as string;
      const big = await stack.call('createOrder', { side: 'buy', orderType: 'limit', baseToken: 'HYPE', quoteToken: 'USDC', amount: '10', price: bestAsk }, { token });
      const partial = await terminal(token, await dordOf(token, big.body.orderId));
      assert.equal(partial.status, 'partially_filled');
      assert.ok(BigInt(partial.filledAmount) > 0n && BigInt(partial.filledAmount) < 1_000_000_000n);
      assert.equal((await balance(token, 'USDC')).locked, '0');
      await stack.simControl('/_sim/book', { coin: '@1', levels: 10, levelNotionalUsd: '20000' });
      await assertInvariants();
    });

    it('wrapped: a resting GTC limit order is cancelled and its lock freed; a market order fills (one aggregate fill row)', async () => {
      const { token } = await funded('500', '5');
      const resting = await stack.call('createOrder', { side: 'sell', orderType: 'limit', baseToken: 'HYPE', quoteToken: 'USDC', amount: '2', price: '60' }, { token, layout: 'wrapped' });
      assert.equal(resting.status, 200, JSON.stringify(resting.body));
      assert.match(resting.body.data.orderId, /^[0-9a-f-]{36}$/);
      await stack.waitFor(async () => {
        const r = await stack.call('getUserOrders', {}, { token, layout: 'wrapped' });
        return r.body.data.orders.find((o: { orderId: string; status: string }) => o.orderId === resting.body.data.orderId && o.status === 'open');
      }, 'order resting');
      assert.equal((await balance(token, 'HYPE')).locked, '200000000');
      const cancelled = await stack.call('cancelOrder', { orderId: resting.body.data.orderId }, { token, layout: 'wrapped' });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      await stack.waitFor(async () => (await balance(token, 'HYPE')).locked === '0', 'lock freed');
      const again = await stack.call('cancelOrder', { orderId: resting.body.data.orderId }, { token, layout: 'wrapped' });
      assert.deepEqual([again.status, again.body.code], [422, 'CANCELLATION_ERROR']);
      const listed = await stack.call('getUserOrders', { status: 'cancelled' }, { token, layout: 'wrapped' });
      assert.equal(listed.body.data.orders.length, 1);

      const market = await stack.call('createOrder', { side: 'sell', orderType: 'market', baseToken: 'HYPE', quoteToken: 'USDC', amount: '1' }, { token, layout: 'wrapped' });
      assert.equal(market.status, 200, JSON.stringify(market.body));
      const all = await stack.call('listDelegatedOrders', { orderType: 'market' }, { token });
      const done = await terminal(token, all.body.orders[0].orderId);
      assert.equal(done.status, 'filled');
      const fills = await stack.call('listFills', { orderId: done.orderId }, { token });
      assert.equal(fills.body.fills.length, 1);
      assert.equal(fills.body.fills[0].fee, null);
      assert.equal(fills.body.fills[0].amount, '100000000');
      assert.equal((await balance(token, 'HYPE')).available, '400000000');
      // flat: getUserOrders is decommissioned; an IOC order cannot be cancelled.
      const decommissioned = await stack.call('getUserOrders', {}, { token, layout: 'flat' });
      assert.equal(decommissioned.body.code, 'VALIDATION_ERROR');
      const ioc = await stack.call('cancelOrder', { orderId: done.clientOrderId }, { token, layout: 'flat' });
      assert.deepEqual([ioc.status, ioc.body.code], [422, 'ORDER_ERROR']);
      await assertInvariants();
    });

    it('a cancel whose look-up misses the order, and a cancel never answered, still end the order and free its lock', async () => {
      const { token } = await funded('500', '5');
      const restingSell = async (price: string) => {
        // The wrapped layout's limit order is a resting GTC one (the flat layout's is an IOC).
        const placed = await stack.call('createOrder', { side: 'sell', orderType: 'limit', baseToken: 'HYPE', quoteToken: 'USDC', amount: '1', price }, { token, layout: 'wrapped' });
        assert.equal(placed.status, 200, JSON.stringify(placed.body));
        const orderId = placed.body.data.orderId as string;
        await stack.waitFor(async () => (await statusOf(orderId)) === 'open', 'order resting');
        return orderId;
      };
      const statusOf = async (orderId: string) => {
        const r = await stack.call('getUserOrders', {}, { token, layout: 'wrapped' });
        return r.body.data.orders.find((o: { orderId: string }) => o.orderId === orderId)?.status as string | undefined;
      };
      // The look-up after the cancel's answer reads `unknownOid`, as from a venue API server that
      // has not seen the order yet: a later look-up ends it.
      const missed = await restingSell('60');
      await stack.simControl('/_sim/faults', { match: { endpoint: 'info', infoType: 'orderStatus' }, effect: { type: 'unknownOid' }, count: 1 });
      assert.equal((await stack.call('cancelOrder', { orderId: missed }, { token, layout: 'wrapped' })).status, 200);
      await stack.waitFor(async () => (await statusOf(missed)) === 'cancelled', 'the order cancelled after a later look-up');
      // The cancel's send gets no answer and was not applied: the venue still shows the order
      // open, so the same signed cancel is sent again and ends it.
      const unanswered = await restingSell('61');
      await stack.simControl('/_sim/faults', { match: { endpoint: 'exchange', action: 'cancel' }, effect: { type: 'timeoutBeforeApply', holdMs: 200 }, count: 1 });
      assert.equal((await stack.call('cancelOrder', { orderId: unanswered }, { token, layout: 'wrapped' })).status, 200);
      await stack.waitFor(async () => (await statusOf(unanswered)) === 'cancelled', 'the order cancelled by the resent cancel');
      // Both faults were met (the cases really ran their recovery paths).
      assert.deepEqual(await (await fetch(`${stack.sim.url}/_sim/faults`)).json(), []);
      assert.equal((await balance(token, 'HYPE')).locked, '0');
      assert.equal((await balance(token, 'HYPE')).available, '500000000');
      await assertInvariants();
    });

    it('reads: batch with notFound, paging by cursor, foreign orders invisible', async () => {
      const { token } = await funded('100');
      for (const price of ['30', '31', '32']) {
        const r = await stack.call('createOrder', { side: 'buy', orderType: 'limit', baseToken: 'HYPE', quoteToken: 'USDC', amount: '0.5', price }, { token });
        assert.equal(r.status, 200);
      }
      const page1 = await stack.call('listDelegatedOrders', { limit: 2 }, { token });
      assert.equal(page1.body.orders.length, 2);
      assert.equal(typeof page1.body.pagination.nextCursor, 'string');
      const page2 = await stack.call('listDelegatedOrders', { limit: 2, cursor: page1.body.pagination.nextCursor }, { token });
      assert.equal(page2.body.orders.length, 1);
      assert.equal(page2.body.pagination.nextCursor, undefined);
      const other = await funded('20');
      const ids = [page1.body.orders[0].orderId, 'dord_00000000-0000-7000-8000-000000000000'];
      const batch = await stack.call('batchGetDelegatedOrders', { orderIds: ids }, { token: other.token });
      assert.deepEqual(batch.body.orders, []);
      assert.deepEqual(batch.body.notFound, ids);
      const mine = await stack.call('batchGetDelegatedOrders', { orderIds: ids }, { token, layout: 'wrapped' });
      assert.equal(mine.body.data.orders.length, 1);
      const foreign = await stack.call('getDelegatedOrder', { orderId: ids[0] }, { token: other.token });
      assert.deepEqual([foreign.status, foreign.body.code], [404, 'NOT_FOUND']);
      const fees = await stack.call('getFees', {}, { token, layout: 'wrapped' });
      assert.deepEqual(fees.body.data.fees.spot, { takerRate: '0.0007', makerRate: '0.0002', takerRatePpm: '700', makerRatePpm: '200' });
      await assertInvariants();
    });

    it('every VALIDATION_ERROR case is refused and nothing is locked or recorded', async () => {
      const { token } = await funded('100');
      const order = { side: 'buy', orderType: 'limit', baseToken: 'HYPE', quoteToken: 'USDC', amount: '1', price: '40' };
      const cases: Array<[string, Record<string, unknown>, ('wrapped' | 'flat')?]> = [
        ['createOrder', { ...order, orderType: 'stop' }],
        ['createOrder', { ...order, side: 'hold' }],
        ['createOrder', { ...order, amount: '1e2' }],
        ['createOrder', { ...order, amount: '-1' }],
        ['createOrder', { ...order, amount: '0.001' }],
        ['createOrder', { ...order, price: '4e1' }],
        ['createOrder', { ...order, price: '4012345678' }],
        ['createOrder', { ...order, price: '40.1234567' }],
        ['createOrder', { ...order, amount: 1 }],
        ['createOrder', { ...order, price: undefined }],
        ['createOrder', { ...order, baseToken: 'PURR' }, 'wrapped'],
        ['cancelOrder', { orderId: 'dord_00000000-0000-7000-8000-000000000000' }, 'flat'],
        ['cancelOrder', { orderId: '0x1234' }, 'flat'],
        ['cancelOrder', { orderId: '0x' + 'ab'.repeat(16) }, 'wrapped'],
        ['listDelegatedOrders', { status: 'done' }],
        ['listDelegatedOrders', { limit: 0 }],
        ['listDelegatedOrders', { limit: 101 }],
        ['listFills', { limit: 0 }],
        ['listFills', { limit: 101 }],
        ['getUserOrders', { status: 'done' }, 'wrapped'],
        ['batchGetDelegatedOrders', { orderIds: Array.from({ length: 101 }, (_, i) => `dord_${i}`) }],
        ['batchGetDelegatedOrders', { orderIds: [] }],
        ['initiateWithdrawal', { tokenSymbol: 'PURR', amount: '1' }],
        ['initiateWithdrawal', { tokenSymbol: 'USDC', amount: '1e1' }],
        ['initiateWithdrawal', { tokenSymbol: 'USDC', amount: '-1' }],
        ['initiateWithdrawal', { tokenSymbol: 'USDC', amount: '0.0000001' }],
        ['getWithdrawalStatus', { withdrawalId: 'nope' }],
      ];
      for (const [operation, fields, layout] of cases) {
        const r = await stack.call(operation, fields, { token, layout: layout ?? 'flat' });
        assert.deepEqual([r.status, r.body.code, r.body.operation], [400, 'VALIDATION_ERROR', operation], `${operation} ${JSON.stringify(fields)} -> ${JSON.stringify(r.body)}`);
      }
      const usdc = await balance(token, 'USDC');
      assert.deepEqual([usdc.available, usdc.locked], ['100000000', '0']);
      const orders = await stack.call('listDelegatedOrders', {}, { token });
      assert.deepEqual(orders.body.orders, []);
      const withdrawals = await stack.call('getUserWithdrawals', {}, { token });
      assert.deepEqual(withdrawals.body.withdrawals, []);
      const tooMuch = await stack.call('createOrder', { ...order, amount: '10' }, { token });
      assert.deepEqual([tooMuch.status, tooMuch.body.code], [422, 'ORDER_ERROR']);
      await assertInvariants();
    });

    it('the v0 CLI logs in and places an order', async () => {
      const key = generatePrivateKey();
      const account = privateKeyToAccount(key);
      await stack.deposit(account, 'USDC', '100');
      const env = { RFQ_URL: stack.harness.url, RFQ_V0_KEY: key };
      await stack.waitFor(async () => (await runV0Cli(['getBalances'], env, () => undefined)) === 0, 'deposit credited');
      const out: string[] = [];
      const code = await runV0Cli(['createOrder', 'side=buy', 'orderType=limit', 'baseToken=HYPE', 'quoteToken=USDC', 'amount=0.5', 'price=41'], env, (line) => out.push(line));
      assert.equal(code, 0, out.join('\n'));
      assert.match(JSON.parse(out[0]!).orderId, /^0x[0-9a-f]{32}$/);
      const lines: string[] = [];
      assert.equal(await runV0Cli(['listDelegatedOrders', 'limit=5', '--layout', 'wrapped'], env, (line) => lines.push(line)), 0);
      assert.equal(JSON.parse(lines[0]!).data.orders.length, 1);
      await assertInvariants();
    });

    it('withdrawals: completed, a second refused while the first is pending, a venue refusal, the venue unreachable', async () => {
      const { account, token } = await funded('100');
      // Hold the first spotSend at the venue (applied later) so it stays pending for a moment.
      await stack.simControl('/_sim/faults', { match: { endpoint: 'exchange', action: 'spotSend', user: stack.omnibus.address }, effect: { type: 'applyLater', delayMs: 1500, holdMs: 200 }, count: 1 });
      const first = await stack.call('initiateWithdrawal', { tokenSymbol: 'USDC', amount: '30' }, { token, layout: 'wrapped' });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const id = first.body.data.withdrawalId;
      const second = await stack.call('initiateWithdrawal', { tokenSymbol: 'USDC', amount: '10' }, { token });
      assert.deepEqual([second.status, second.body.code], [409, 'CONFLICT']);
      assert.equal((await balance(token, 'USDC')).locked, '30000000');
      const completed = await stack.waitFor(async () => {
        const r = await stack.call('getWithdrawalStatus', { withdrawalId: id }, { token });
        return r.body.withdrawal?.state === 'completed' ? r.body.withdrawal : null;
      }, 'withdrawal completed', 20_000);
      assert.match(completed.txHash, /^0x/);
      assert.equal(completed.errorMessage, null);
      const usdc = await balance(token, 'USDC');
      assert.deepEqual([usdc.available, usdc.locked], ['70000000', '0']);
      const atVenue = await (await fetch(`${stack.sim.url}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'spotClearinghouseState', user: account.address }) })).json() as { balances: Array<{ coin: string; total: string }> };
      assert.equal(parseAmount(atVenue.balances.find((b) => b.coin === 'USDC')!.total, 8, { field: 'total' }), 30n * 10n ** 8n, 'the identity holds exactly 30 USDC at the venue');
      await assertInvariants();

      await stack.simControl('/_sim/faults', { match: { endpoint: 'exchange', action: 'spotSend' }, effect: { type: 'reject', message: 'Insufficient balance for spotSend' }, count: 1 });
      const refused = await stack.call('initiateWithdrawal', { tokenSymbol: 'USDC', amount: '5' }, { token });
      const failed = await stack.waitFor(async () => {
        const r = await stack.call('getWithdrawalStatus', { withdrawalId: refused.body.withdrawalId }, { token });
        return r.body.withdrawal?.state === 'failed' ? r.body.withdrawal : null;
      }, 'withdrawal failed');
      assert.match(failed.errorMessage, /Insufficient/);
      assert.equal(failed.txHash, null);
      assert.deepEqual([(await balance(token, 'USDC')).available, (await balance(token, 'USDC')).locked], ['70000000', '0']);
      const list = await stack.call('getUserWithdrawals', {}, { token });
      assert.deepEqual(list.body.withdrawals.map((w: { state: string }) => w.state), ['failed', 'completed']);
      const foreign = await stack.call('getWithdrawalStatus', { withdrawalId: id }, { token: (await funded('11')).token });
      assert.deepEqual([foreign.status, foreign.body.code], [404, 'NOT_FOUND']);
      await assertInvariants();

      await stack.simControl('/_sim/faults', { match: { endpoint: 'info' }, effect: { type: 'http', status: 503 }, count: 5 });
      const down = await stack.call('initiateWithdrawal', { tokenSymbol: 'USDC', amount: '5' }, { token });
      assert.deepEqual([down.status, down.body.code], [503, 'SERVICE_UNAVAILABLE']);
      await stack.simControl('/_sim/faults/clear', {});
      assert.equal((await balance(token, 'USDC')).locked, '0');
    });
  });
}
