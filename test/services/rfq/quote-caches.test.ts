/**
 * The quote path's maker cache (issue 17): a hit past half the TTL answers at once and reads the
 * maker again behind it; a fresh read always reads. Observed through the store: the maker is
 * deactivated behind the cache's back.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { QuoteCaches } from '../../../src/services/rfq/quote-caches.ts';

for (const backend of backends()) {
  describe(`quote caches: makers [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend, { seed: false });
    });
    after(async () => {
      await h.close();
    });

    const newMaker = async () => {
      const { makerId } = await h.newMaker();
      const row = await h.node.context.service.db.selectFrom('makers').select('account_id').where('maker_id', '=', makerId).executeTakeFirstOrThrow();
      return row.account_id;
    };
    const deactivate = (accountId: string) => h.node.context.service.db.updateTable('makers').set({ active: false }).where('account_id', '=', accountId).execute();

    it('answers a hit at once and reads the maker again behind it past half the TTL', async () => {
      const db = h.node.context.service.db;
      const accountId = await newMaker();
      const caches = new QuoteCaches(10_000);
      const t0 = 1_000_000;
      assert.equal((await caches.maker(db, accountId, t0))?.active, true);
      await deactivate(accountId);
      assert.equal((await caches.maker(db, accountId, t0 + 4_000))?.active, true, 'under half the TTL: the cached row');
      await caches.settled();
      assert.equal((await caches.maker(db, accountId, t0 + 4_000))?.active, true, 'and nothing was read behind it');
      assert.equal((await caches.maker(db, accountId, t0 + 6_000))?.active, true, 'past half the TTL: still answered from the cache');
      await caches.settled();
      assert.equal((await caches.maker(db, accountId, t0 + 6_000))?.active, false, 'the read behind it replaced the entry');
    });

    it('reads when fresh is asked for, and when the entry expired', async () => {
      const db = h.node.context.service.db;
      const first = await newMaker();
      const second = await newMaker();
      const caches = new QuoteCaches(10_000);
      const t0 = 1_000_000;
      await caches.maker(db, first, t0);
      await caches.maker(db, second, t0);
      await deactivate(first);
      await deactivate(second);
      assert.equal((await caches.maker(db, first, t0 + 1, true))?.active, false);
      assert.equal((await caches.maker(db, first, t0 + 1))?.active, false, 'the fresh read is kept');
      assert.equal((await caches.maker(db, second, t0 + 10_000))?.active, false);
    });
  });
}
