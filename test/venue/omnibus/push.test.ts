/**
 * The `/v0` omnibus worker on the venue's pushes: once its stream is live (and one REST read has
 * caught up), deposits are credited and an IOC's fills are booked with every REST read of the
 * ledger and the fills failing at the venue, so they can only have come pushed; idle, it spends
 * no background weight; when the socket drops, the passes poll again, and after it comes back
 * one REST read catches up on what happened meanwhile.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { startV0Stack, type V0Stack } from '../../helpers/v0.ts';
import { eventually } from '../../helpers/eventually.ts';

/** The node's spent venue weight at `priority`, from `/metrics`. */
async function spent(stack: V0Stack, priority: string): Promise<number> {
  const text = await (await fetch(`${stack.harness.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`rfq_venue_weight_spent_total{priority="${priority}"}`));
  return Number(line?.split(' ')[1] ?? 'NaN');
}

const HISTORY_READS = ['userNonFundingLedgerUpdates', 'userFillsByTime'];

for (const backend of backends()) {
  describe(`/v0 omnibus worker on the venue's pushes (${backend})`, { timeout: 120_000 }, () => {
    let stack: V0Stack;
    const faults: number[] = [];
    before(async () => {
      stack = await startV0Stack(backend, { pollIntervalMs: 20 });
      assert.equal(await eventually(async () => stack.harness.node.v0Worker!.pushing, Boolean, 10_000), true);
      await stack.settle();
    });
    after(async () => {
      await stack?.simControl('/_sim/faults/clear', {});
      await stack?.close();
    });

    /** From now on every REST read of the omnibus's ledger and fills fails at the venue. */
    async function refuseHistoryReads(): Promise<void> {
      for (const infoType of HISTORY_READS) {
        const { id } = (await stack.simControl('/_sim/faults', { match: { endpoint: 'info', infoType }, effect: { type: 'http', status: 500 }, count: null })) as { id: number };
        faults.push(id);
      }
    }

    async function allowHistoryReads(): Promise<void> {
      for (const id of faults.splice(0)) await stack.simControl('/_sim/faults/clear', { id });
    }

    it('credits a deposit and books an IOC’s fills from the pushes alone, and idles at no background weight', async () => {
      await refuseHistoryReads();
      try {
        const account = privateKeyToAccount(generatePrivateKey());
        await stack.deposit(account, 'USDC', '200');
        const token = await stack.login(account);
        const balances = await eventually(async () => (await stack.call('getBalances', {}, { token })).body.balances, (b) => b?.length === 1, 10_000);
        assert.equal(balances[0].available, '200000000');

        const created = await stack.call('createOrder', { side: 'buy', orderType: 'limit', baseToken: 'HYPE', quoteToken: 'USDC', amount: '1', price: '41' }, { token });
        assert.equal(created.status, 200, JSON.stringify(created.body));
        const orderId = (await stack.call('listDelegatedOrders', {}, { token })).body.orders[0].orderId as string;
        const order = await eventually(async () => (await stack.call('getDelegatedOrder', { orderId }, { token })).body.order, (o) => o?.status === 'filled', 10_000);
        assert.equal(order.filledAmount, '100000000');
        const fills = (await stack.call('listFills', {}, { token })).body.fills;
        assert.equal(fills.length, 1);

        await stack.settle();
        const before = await spent(stack, 'background');
        const startedAt = Date.now();
        // The measure is over a span of time: the condition is that span having passed.
        await eventually(async () => Date.now() - startedAt, (elapsed) => elapsed >= 2_000, 10_000);
        // Passes every 20 ms for two seconds: spot metadata is reused, nothing else is read.
        assert.equal((await spent(stack, 'background')) - before, 0);
        assert.deepEqual((await stack.invariants()).violations, []);
      } finally {
        await allowHistoryReads();
      }
    });

    it('polls while the socket is down, and after it reconnects one REST read catches up', async () => {
      const worker = stack.harness.node.v0Worker!;
      // The venue drops every socket and refuses new ones for a moment; the SDK reconnects after.
      await stack.simControl('/_sim/ws/drop', { refuseMs: 1_500 });
      await eventually(async () => worker.pushing, (pushing) => !pushing, 5_000);
      const account = privateKeyToAccount(generatePrivateKey());
      await stack.deposit(account, 'USDC', '30');
      const token = await stack.login(account);
      // Credited whichever way it came: polled while down, or caught up once live again.
      const balances = await eventually(async () => (await stack.call('getBalances', {}, { token })).body.balances, (b) => b?.length === 1, 15_000);
      assert.equal(balances[0].available, '30000000');
      await eventually(async () => worker.pushing, Boolean, 15_000);
      assert.equal(worker.pushing, true);
    });
  });

  describe(`/v0 omnibus worker: a ledger push lost on its way (${backend})`, { timeout: 120_000 }, () => {
    let stack: V0Stack;
    before(async () => {
      stack = await startV0Stack(backend, { pollIntervalMs: 20, ledgerReconcileMs: 1_000 });
      assert.equal(await eventually(async () => stack.harness.node.v0Worker!.pushing, Boolean, 10_000), true);
      await stack.settle();
    });
    after(async () => {
      await stack?.simControl('/_sim/faults/clear', {});
      await stack?.close();
    });

    it('the reconciliation read credits a deposit whose push never came, the stream live throughout', async () => {
      const worker = stack.harness.node.v0Worker!;
      const omnibus = privateKeyToAccount(stack.omnibusKey).address;
      await stack.simControl('/_sim/faults', { match: { endpoint: 'ws', channel: 'userNonFundingLedgerUpdates', user: omnibus }, effect: { type: 'dropPush' }, count: 1 });
      const account = privateKeyToAccount(generatePrivateKey());
      const before = await spent(stack, 'background');
      await stack.deposit(account, 'USDC', '40');
      const token = await stack.login(account);
      const balances = await eventually(async () => (await stack.call('getBalances', {}, { token })).body.balances, (b) => b?.length === 1, 15_000);
      assert.equal(balances[0].available, '40000000');
      // The fault was taken (the push really was dropped) and the socket never went down.
      const faults = (await (await fetch(`${stack.sim.url}/_sim/faults`)).json()) as unknown[];
      assert.deepEqual(faults, []);
      assert.equal(worker.pushing, true);
      assert.ok((await spent(stack, 'background')) - before >= 20, 'a REST read of the ledger was made');
      assert.deepEqual((await stack.invariants()).violations, []);
    });
  });
}
