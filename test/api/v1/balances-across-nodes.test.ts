/**
 * A balance in a token listed on another node moments ago shows in human units: the node's cached
 * reference data predates the token, and formatting with "no decimals" printed raw units (found by
 * the seeded simulation, seed 304 on PostgreSQL: 200000 USDC read as "200000000000").
 *
 * PostgreSQL only: two nodes share one database.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';

const skip = process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL: two nodes share one PostgreSQL database';

describe('balances of a token listed on another node [postgres]', { skip }, () => {
  let database: TestDatabase;
  let nodeA: Harness;
  let nodeB: Harness;
  before(async () => {
    database = await createTestDatabase('postgres');
    nodeA = await startHarness('postgres', { database });
    nodeB = await startHarness('postgres', { database, seed: false });
  });
  after(async () => {
    await nodeB?.close();
    await nodeA?.close();
    await database?.drop();
  });

  it('reads the new token with its decimals, over REST and in the balance snapshot', async () => {
    const user = await nodeB.newUser();
    assert.deepEqual((await user.client.balances()).balances, []);
    await nodeA.admin.putToken('SIMT', { decimals: 6 });
    await nodeA.fund(user.account.address, { SIMT: '5' });
    const rest = (await user.client.balances()).balances.find((b) => b.token === 'SIMT');
    assert.deepEqual([rest?.available, rest?.locked, rest?.total], ['5', '0', '5']);
    const session = user.client.wsSession();
    try {
      await session.connect();
      const snapshot = session.next((f) => f.kind === 'balanceSnapshot', 10_000);
      await session.subscribe('balances');
      const frame = (await snapshot) as unknown as { balances: Array<{ token: string; total: string }> };
      assert.equal(frame.balances.find((b) => b.token === 'SIMT')?.total, '5');
    } finally {
      session.close();
    }
  });

  it('lists a deposit in the new token with its decimals (the same bug in the deposit listing: found by the simulation, seeds 2015 and 2018 on PostgreSQL with --chain)', async () => {
    const user = await nodeB.newUser();
    assert.deepEqual((await user.client.deposits()).items, []);
    await nodeA.admin.putToken('SIMD', { decimals: 6 });
    const account = await nodeA.node.store.db.selectFrom('accounts').select('id').where((eb) => eb(eb.fn('lower', ['address']), '=', user.account.address.toLowerCase())).executeTakeFirstOrThrow();
    const now = Date.now();
    await nodeA.node.store.db.insertInto('deposits').values({
      id: 'dep_simd', account_id: account.id, from_address: user.account.address.toLowerCase(), token: 'SIMD', amount: 5_000_000n, status: 'PENDING',
      tx_hash: `0x${'ab'.repeat(32)}`, log_index: 0, block_number: 1, movement_id: null, created_at: now, updated_at: now,
    }).execute();
    const listed = (await user.client.deposits()).items.find((d) => d.token === 'SIMD');
    assert.equal(listed?.amount, '5');
  });
});
