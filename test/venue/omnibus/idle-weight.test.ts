/**
 * The `/v0` omnibus worker idle, polling (its fallback while the venue's socket is down; the
 * pushed path is push.test.ts), spends almost no venue weight: its passes reuse spot metadata and
 * its ledger reads back off while nothing arrives (a deposit still arrives within the longest
 * pause), and the ledger cursor is kept in the store, so a restarted worker reads on from it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { startV0Stack, V0_TEST_LEDGER_IDLE_MAX_MS, type V0Stack } from '../../helpers/v0.ts';
import { eventually } from '../../helpers/eventually.ts';

/** The node's spent venue weight at `priority`, from `/metrics`. */
async function spent(stack: V0Stack, priority: string): Promise<number> {
  const text = await (await fetch(`${stack.harness.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`rfq_venue_weight_spent_total{priority="${priority}"}`));
  return Number(line?.split(' ')[1] ?? 'NaN');
}

for (const backend of backends()) {
  describe(`/v0 omnibus worker idle, polling (${backend})`, { timeout: 120_000 }, () => {
    let stack: V0Stack;
    before(async () => {
      // Passes every 20 ms: without the back-off that is 50 ledger reads (1,000 weight) a second.
      stack = await startV0Stack(backend, { pollIntervalMs: 20, push: false });
    });
    after(async () => stack?.close());

    it('idle, the ledger reads back off and passes read no metadata: a few reads over three seconds, not 150', async () => {
      await stack.settle();
      const start = await spent(stack, 'background');
      const startedAt = Date.now();
      // The measure is over a span of time: the condition is that span having passed.
      await eventually(async () => Date.now() - startedAt, (elapsed) => elapsed >= 3_000, 10_000);
      const idle = (await spent(stack, 'background')) - start;
      // Back-off from 20 ms to the 1 s cap: about 9 reads of 20 in three seconds.
      assert.ok(idle <= 12 * 20, `idle background weight ${idle} over 3 s`);
    });

    it('a deposit made while idle is credited within the longest pause, and the cursor is in the store', async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      await stack.deposit(account, 'USDC', '25');
      const token = await stack.login(account);
      const depositedAt = Date.now();
      await eventually(async () => (await stack.call('getBalances', {}, { token })).body.balances?.length, (n) => n === 1, 10_000);
      assert.ok(Date.now() - depositedAt <= V0_TEST_LEDGER_IDLE_MAX_MS + 2_000);
      const cursor = await stack.harness.node.store.db.selectFrom('venue_cursors').selectAll().where('name', '=', 'v0-omnibus-ledger').executeTakeFirst();
      assert.ok(cursor && Number(cursor.position_ms) > 0, JSON.stringify(cursor));
    });
  });
}
