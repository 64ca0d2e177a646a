/**
 * Limits at the edge over real HTTP: failed operator authentication is
 * rate-limited per source; operator settings are bounded and consistent (a zero window is refused
 * and RFQ creation keeps working); an empty reject body is accepted; open RFQs per account are
 * capped exactly (409 TOO_MANY_OPEN_RFQS, also under concurrent creation); sign-in challenges are
 * capped per source and expired ones pruned.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { rejects } from '../helpers/rejects.ts';
import { AdminClient } from '../../src/client/admin-client.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import { ApiError, HttpTransport, signRequest } from '../../src/client/http.ts';
import { ADMIN_AUTH_FAILURES_PER_SEC } from '../../src/api/http-hooks.ts';
import { pruneChallenges } from '../../src/services/auth/create-challenge.ts';
import { elapse } from '../helpers/eventually.ts';

async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
}

for (const backend of backends()) {
  describe(`edge limits [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => {
      await h.close();
    });

    it('rate-limits failed operator authentication per source, and then refuses even the right token', async () => {
      const wrong = new AdminClient(h.url, 'wrong-token-wrong-token-wrong-token');
      try {
        const started = Date.now();
        const statuses = await Promise.all(Array.from({ length: 30 }, () => statusOf(wrong.settings())));
        const windows = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1;
        const unauthorized = statuses.filter((s) => s === 401).length;
        assert.ok(unauthorized <= ADMIN_AUTH_FAILURES_PER_SEC * windows, `${unauthorized} wrong tokens answered in ${windows} one-second windows: ${statuses.join(',')}`);
        assert.equal(statuses.filter((s) => s === 429).length, 30 - unauthorized, statuses.join(','));
        // Right after the burst the source's budget is spent: the right token waits too.
        const right = await statusOf(h.admin.settings());
        assert.ok(right === 429 || right === 200, String(right));
      } finally {
        await elapse(1100, 'a fresh window of the failed-authentication limit');
      }
      assert.equal(typeof (await h.admin.settings()).maxWindowMs, 'number');
    });

    it('bounds operator settings and keeps them consistent; nothing changes on refusal', async () => {
      const before = await h.admin.settings();
      assert.equal(before.maxOpenRfqsPerAccount, 20);
      const zero = await rejects(h.admin.putSettings({ maxWindowMs: 0 }), 400, 'INVALID_REQUEST');
      assert.equal((zero.details?.errors as Array<{ field: string }>)[0]!.field, 'maxWindowMs');
      await rejects(h.admin.putSettings({ maxOpenRfqsPerAccount: 0 }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.putSettings({ settlementHeadroomSecs: 86_400 }), 400, 'INVALID_REQUEST');
      await rejects(h.admin.putSettings({ makerFailureThreshold: 5, maxWindowMs: 10_000_000 }), 400, 'INVALID_REQUEST');
      assert.deepEqual(await h.admin.settings(), before);
      const { client } = await h.newUser();
      await h.fund((await client.balances(), client.login!.account), { USDC: '1000' });
      const rfq = await client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '50' });
      assert.equal(rfq.status, 'PENDING');
    });

    it('accepts an operator reject with no body at all', async () => {
      const status = await statusOf(new HttpTransport(h.url).send('POST', `/admin/v1/withdrawals/wd_${randomUUID()}/reject`, { bearer: 'test-admin-token-0123456789' }));
      assert.equal(status, 404, 'an absent withdrawal, not a refused body');
    });

    it('caps open RFQs per account exactly, also under concurrent creation', async () => {
      await h.admin.putSettings({ maxOpenRfqsPerAccount: 3 });
      try {
        const { client } = await h.newUser();
        const create = (key?: string) => client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'SELL', baseQty: '1', windowMs: 30_000, ...(key ? { idempotencyKey: key } : {}) });
        const statuses = await Promise.all(Array.from({ length: 8 }, () => statusOf(create())));
        assert.equal(statuses.filter((s) => s === 200).length, 3, statuses.join(','));
        const refused = await rejects(create(), 409, 'TOO_MANY_OPEN_RFQS');
        assert.equal(refused.details?.maxOpenRfqsPerAccount, 3);
        const open = await client.listRfqs({ status: 'PENDING' });
        assert.equal(open.items.length, 3);
        const replayKey = randomUUID();
        // Cancelling one frees a place.
        await client.cancelRfq(open.items[0]!.id);
        await create(replayKey);
        // An idempotent replay is never refused by the cap.
        assert.equal((await create(replayKey)).status, 'PENDING');
        // Another account is not affected.
        const other = await h.newUser();
        await other.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'SELL', baseQty: '1' });
      } finally {
        await h.admin.putSettings({ maxOpenRfqsPerAccount: 20 });
      }
    });

    it('decodes the signature strictly and treats an unopenable secret as no credential (item 7)', async () => {
      const { client } = await h.newUser();
      const send = async (mangle: (signature: string) => string) => {
        const headers = signRequest(client.credentials!, Date.now(), 'GET', '/v1/rfq/balances', '', '') as unknown as Record<string, string>;
        headers['service-api-signature'] = mangle(headers['service-api-signature']!);
        const response = await fetch(`${h.url}/v1/rfq/balances`, { headers });
        return [response.status, ((await response.json()) as { error?: { code: string } }).error?.code];
      };
      assert.deepEqual(await send((sig) => `${sig}!!`), [403, 'SIGNATURE_MISMATCH']);
      assert.deepEqual(await send((sig) => `${sig.slice(0, 20)}*${sig.slice(20)}`), [403, 'SIGNATURE_MISMATCH']);
      assert.deepEqual(await send((sig) => `${sig}, ${sig}`), [403, 'SIGNATURE_MISMATCH']);
      assert.deepEqual(await send((sig) => sig), [200, undefined]);
      const { client: broken } = await h.newUser();
      await h.node.store.db.updateTable('api_keys').set({ secret_enc: 'not-a-sealed-secret' }).where('access_key', '=', broken.credentials!.accessKey).execute();
      await rejects(broken.balances(), 401, 'UNAUTHENTICATED');
    });

    it('caps live sign-in challenges per source and prunes expired ones', async () => {
      const auth = h.node.context.service.auth as { maxLiveChallengesPerSource: number };
      const configured = auth.maxLiveChallengesPerSource;
      auth.maxLiveChallengesPerSource = 5;
      try {
        const anonymous = new RfqClient(h.url);
        const db = h.node.store.db;
        const live = () => db.selectFrom('auth_challenges').select(db.fn.countAll<string>().as('n')).where('expires_at', '>', Date.now()).where('used_at', 'is', null).executeTakeFirstOrThrow();
        const already = Number((await live()).n);
        const statuses = [];
        for (let i = 0; i < 8; i++) statuses.push(await statusOf(anonymous.challenge()));
        assert.ok(statuses.includes(429), statuses.join(','));
        assert.ok(Number((await live()).n) <= Math.max(already, 5), 'live challenges past the cap');
        // Expired challenges go: make every challenge expired, then prune.
        await db.updateTable('auth_challenges').set({ expires_at: 1 }).execute();
        await pruneChallenges(db, Date.now());
        const left = await db.selectFrom('auth_challenges').select(db.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
        assert.equal(Number(left.n), 0);
        assert.equal(await statusOf(anonymous.challenge()), 200, 'the source may ask again once its challenges expired');
      } finally {
        auth.maxLiveChallengesPerSource = configured;
      }
    });
  });
}
