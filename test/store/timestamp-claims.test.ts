/**
 * The one replay claim (`rfq_claim_timestamps`, src/store/timestamp-claims.ts): a pair is claimed
 * once; a second claim of it is `reused`; a revoked or unknown key claims nothing (`revoked`);
 * a pair repeated in one call is claimed once; the batched claim at authentication and the claim
 * inside a transaction give the same answers through it.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends, openMigratedStore } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { claimKey, claimTimestamps, pruneTimestampClaims } from '../../src/store/timestamp-claims.ts';
import { claimInTransaction, TimestampClaims } from '../../src/services/auth/timestamp-claims.ts';

for (const backend of backends()) {
  describe(`replay claim [${backend}]`, () => {
    let store: Store;
    let close: () => Promise<void>;
    const live = `ak_${randomUUID()}`;
    const revoked = `ak_${randomUUID()}`;
    before(async () => {
      ({ store, close } = await openMigratedStore(backend));
      const accountId = randomUUID();
      await store.db.insertInto('accounts').values({ id: accountId, address: '0x0000000000000000000000000000000000000002', created_at: 1 }).execute();
      const key = { account_id: accountId, secret_enc: 'x', maker_scoped: false, created_at: 1, expires_at: 10 ** 13 };
      await store.db.insertInto('api_keys').values([{ ...key, access_key: live, revoked_at: null }, { ...key, access_key: revoked, revoked_at: 5 }]).execute();
    });
    after(async () => {
      await close();
    });

    it('claims a pair once, refuses it after, and claims nothing for a revoked or unknown key', async () => {
      const first = await claimTimestamps(store.db, [{ accessKey: live, signedAt: 100 }, { accessKey: revoked, signedAt: 100 }, { accessKey: 'ak_unknown', signedAt: 100 }]);
      assert.deepEqual([first.get(claimKey(live, 100)), first.get(claimKey(revoked, 100)), first.get(claimKey('ak_unknown', 100))], ['claimed', 'revoked', 'revoked']);
      const again = await claimTimestamps(store.db, [{ accessKey: live, signedAt: 100 }, { accessKey: live, signedAt: 101 }, { accessKey: live, signedAt: 101 }]);
      assert.deepEqual([again.get(claimKey(live, 100)), again.get(claimKey(live, 101)), again.size], ['reused', 'claimed', 2]);
      const rows = await store.db.selectFrom('request_timestamps').select(['access_key', 'signed_at']).orderBy('signed_at').execute();
      assert.deepEqual(rows.map((r) => [r.access_key, Number(r.signed_at)]), [[live, 100], [live, 101]]);
    });

    it('answers the same through the batched claim and the claim in a transaction', async () => {
      const claims = new TimestampClaims(store.db);
      assert.deepEqual(await Promise.all([claims.claim(live, 200), claims.claim(live, 200)]), [true, false], 'a pair repeated in one batch wins once');
      assert.equal(await claims.claim(live, 200), false);
      await assert.rejects(claims.claim(revoked, 200), { code: 'UNAUTHENTICATED' });
      const inTx = (signedAt: number, accessKey = live) => store.db.transaction().execute((tx) => claimInTransaction(tx, { accessKey, signedAt, timestampClaimed: false }));
      assert.equal(await inTx(200), false);
      assert.equal(await inTx(201), true);
      await assert.rejects(inTx(201, revoked), { code: 'UNAUTHENTICATED' });
    });

    it('forgets claims older than the horizon', async () => {
      await pruneTimestampClaims(store.db, 150);
      const left = await store.db.selectFrom('request_timestamps').select('signed_at').orderBy('signed_at').execute();
      assert.deepEqual(left.map((r) => Number(r.signed_at)), [200, 201]);
    });
  });
}
