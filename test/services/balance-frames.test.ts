/**
 * The `balances` topic's last frame is the account's committed state, even when two transactions
 * change different balance rows of one account at the same time (found by the simulation, seed
 * 5017 on PostgreSQL: a lock released by one transaction while another changed another token
 * left the taker's last `balanceSnapshot` showing the lock). Each transaction reads its snapshot
 * while the other is uncommitted; the frame numbered last must still show both changes.
 *
 * PostgreSQL only: PGlite is one connection, so its transactions never overlap.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { backends } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { inTransaction } from '../../src/store/outbox.ts';
import { pushFrames } from '../../src/services/frames.ts';

const postgres = backends().includes('postgres');

describe('balance frames of overlapping transactions [postgres]', { skip: !postgres && 'needs TEST_DATABASE_URL' }, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('postgres');
  });
  after(async () => h.close());

  /** The account's balances as the `balances` frame with the highest seq shows them, and as stored. */
  async function lastFrameAndState(accountId: string) {
    const db = h.node.store.db;
    const last = await db.selectFrom('outbox').select(['seq', 'frame']).where('account_id', '=', accountId).where('topic', '=', 'balances').orderBy('seq', 'desc').limit(1).executeTakeFirstOrThrow();
    const shown = (last.frame as { balances: Array<{ token: string; available: string; locked: string }> }).balances.map((b) => `${b.token} ${b.available}/${b.locked}`);
    const view = await h.node.context.service.db.selectFrom('balances').select(['token', 'available', 'locked']).where('account_id', '=', accountId).orderBy('token').execute();
    return { seq: Number(last.seq), shown, stored: view.map((b) => `${b.token} ${b.available}/${b.locked}`) };
  }

  for (const order of ['first reader commits last', 'first reader commits first'] as const) {
    it(`shows both changes in the frame numbered last (${order})`, async () => {
      const { client, account } = await h.newUser();
      await h.fund(account.address, { USDC: '1000', ETH: '2' });
      const accountId = client.login!.userId;
      const deps = h.node.context.service;
      const db = h.node.store.db;
      const before = (await lastFrameAndState(accountId)).seq;

      let aHasRead!: () => void;
      const aRead = new Promise<void>((resolve) => (aHasRead = resolve));
      let letACommit!: () => void;
      const aMayCommit = new Promise<void>((resolve) => (letACommit = resolve));
      // A locks 100 USDC and reads its snapshot, then holds its transaction open.
      const a = inTransaction(db, async (tx) => {
        await sql`update balances set available = available - 100000000, locked = locked + 100000000 where account_id = ${accountId} and token = 'USDC'`.execute(tx);
        await pushFrames(tx, deps, [{ kind: 'balances', accountId }], {}, Date.now());
        aHasRead();
        await aMayCommit;
      });
      await aRead;
      // B moves 1 ETH to locked meanwhile: its snapshot cannot see A's uncommitted lock.
      const b = inTransaction(db, async (tx) => {
        await sql`update balances set available = available - 1000000000000000000, locked = locked + 1000000000000000000 where account_id = ${accountId} and token = 'ETH'`.execute(tx);
        await pushFrames(tx, deps, [{ kind: 'balances', accountId }], {}, Date.now());
        if (order === 'first reader commits first') letACommit();
      });
      if (order === 'first reader commits last') {
        await b;
        letACommit();
      }
      await Promise.all([a, b]);

      const after = await lastFrameAndState(accountId);
      assert.equal(after.seq, before + 2, 'one frame per transaction');
      assert.deepEqual(after.stored, ['ETH 1000000000000000000/1000000000000000000', 'USDC 900000000/100000000']);
      assert.deepEqual(after.shown.sort(), ['ETH 1/1', 'USDC 900/100']);
    });
  }
});
