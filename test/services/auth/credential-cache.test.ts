/**
 * The per-node credential cache evicts the least recently used entry when full (
 * it used to clear itself at 100k). Observed through the store: each key is revoked behind the
 * cache's back, so a key still cached answers its old, unrevoked row and an evicted one is read
 * again and answers revoked. The same way: an expired key is read again, and a read that an
 * eviction (a revocation on this node) overtook is not kept.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { CredentialCache } from '../../../src/services/auth/credential-cache.ts';

for (const backend of backends()) {
  describe(`credential cache [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend, { seed: false });
    });
    after(async () => {
      await h.close();
    });

    it('evicts the least recently used key, not the oldest inserted nor all of them', async () => {
      const deps = h.node.context.service;
      const keys: string[] = [];
      for (let i = 0; i < 3; i++) keys.push((await h.newUser()).client.credentials!.accessKey);
      const [a, b, c] = keys as [string, string, string];
      const cache = new CredentialCache(3_600_000, 2);
      assert.equal((await cache.get(deps, a))?.revokedAt, null);
      assert.equal((await cache.get(deps, b))?.revokedAt, null);
      // A hit on `a` makes `b` the least recently used; reading `c` then pushes `b` out.
      await cache.get(deps, a);
      await cache.get(deps, c);
      await deps.db.updateTable('api_keys').set({ revoked_at: deps.clock.now() }).where('access_key', 'in', keys).execute();
      assert.equal((await cache.get(deps, a))?.revokedAt, null, 'a was used recently: still cached');
      assert.notEqual((await cache.get(deps, b))?.revokedAt ?? null, null, 'b was least recently used: read again');
      assert.equal(cache.size, 2);
    });

    it('reads an expired key before answering', async () => {
      const deps = h.node.context.service;
      const key = (await h.newUser()).client.credentials!.accessKey;
      let now = 1_000_000;
      const at = { ...deps, clock: { now: () => now } };
      const cache = new CredentialCache(10_000);
      await cache.get(at, key);
      await deps.db.updateTable('api_keys').set({ revoked_at: deps.clock.now() }).where('access_key', '=', key).execute();
      now += 10_000;
      assert.notEqual((await cache.get(at, key))?.revokedAt ?? null, null);
    });

    it('keeps out of the cache a read that an eviction overtook', async () => {
      const deps = h.node.context.service;
      const key = (await h.newUser()).client.credentials!.accessKey;
      const cache = new CredentialCache(10_000);
      const reading = cache.get(deps, key);
      cache.evict(key);
      assert.equal((await reading)?.revokedAt, null, 'the read in flight still answers its caller');
      await deps.db.updateTable('api_keys').set({ revoked_at: deps.clock.now() }).where('access_key', '=', key).execute();
      assert.notEqual((await cache.get(deps, key))?.revokedAt ?? null, null, 'read again, not the row read before the eviction');
    });
  });
}
