/**
 * Wallet sign-in and HMAC authentication, black-box over HTTP: every failure has its status and
 * code, and a successful round trip follows the documented recipe.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import { signRequest } from '../../../src/client/http.ts';
import { signSiwe } from '../../../src/client/siwe.ts';
import { rejects } from '../../helpers/rejects.ts';
import { elapse } from '../../helpers/eventually.ts';

async function rawSigned(h: Harness, client: RfqClient, path: string, timestamp: number, mutate?: (headers: Record<string, string>) => void) {
  const headers: Record<string, string> = { ...signRequest(client.credentials!, timestamp, 'GET', path, '', '') };
  mutate?.(headers);
  const response = await fetch(`${h.url}${path}`, { headers });
  return { status: response.status, body: (await response.json()) as { error?: { code: string; details?: Record<string, unknown> } } };
}

for (const backend of backends()) {
  describe(`auth [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => h.close());

    it('issues a key by SIWE and accepts a signed request', async () => {
      const { client, account } = await h.newUser();
      assert.equal(client.login!.account, account.address);
      assert.match(client.login!.secret, /^[A-Za-z0-9+/]+=*$/);
      assert.equal(client.login!.makerId, undefined);
      const expiresIn = client.login!.expiresAt - Date.now();
      assert.ok(Math.abs(expiresIn - 14 * 24 * 3600_000) < 60_000, 'default lifetime is two weeks');
      const { balances } = await client.balances();
      assert.deepEqual(balances, []);
      const { keys } = await client.listApiKeys();
      assert.deepEqual(keys.map((k) => k.accessKey), [client.credentials!.accessKey]);
      assert.ok(!('secret' in keys[0]!));
    });

    it('marks a registered active maker key maker-scoped', async () => {
      const maker = await h.newMaker();
      assert.equal(maker.client.login!.makerId, maker.makerId);
    });

    it('refuses SIWE with wrong domain, chain id, reused nonce, bad signature, expired, and over-long lifetime', async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      const other = privateKeyToAccount(generatePrivateKey());
      const client = new RfqClient(h.url);
      const domain = await signSiwe(account, { domain: 'evil.example', chainId: 31337, nonce: (await client.challenge()).nonce });
      const e1 = await rejects(client.createApiKey(domain), 401, 'SIWE_INVALID');
      assert.equal(e1.details?.reason, 'domain');
      const chain = await signSiwe(account, { domain: 'localhost', chainId: 1, nonce: (await client.challenge()).nonce });
      assert.equal((await rejects(client.createApiKey(chain), 401, 'SIWE_INVALID')).details?.reason, 'chainId');
      const unknownNonce = await signSiwe(account, { domain: 'localhost', chainId: 31337, nonce: '0123456789abcdef0123456789abcdef' });
      assert.equal((await rejects(client.createApiKey(unknownNonce), 401, 'SIWE_INVALID')).details?.reason, 'nonce');
      const nonce = (await client.challenge()).nonce;
      const good = await signSiwe(account, { domain: 'localhost', chainId: 31337, nonce });
      const forged = { message: good.message, signature: await other.signMessage({ message: good.message }) };
      assert.equal((await rejects(client.createApiKey(forged), 401, 'SIWE_INVALID')).details?.reason, 'signature');
      await client.createApiKey(good);
      assert.equal((await rejects(client.createApiKey(good), 401, 'SIWE_INVALID')).details?.reason, 'nonce');
      const expired = await signSiwe(account, { domain: 'localhost', chainId: 31337, nonce: (await client.challenge()).nonce, expirationTime: new Date(Date.now() - 1000) });
      assert.equal((await rejects(client.createApiKey(expired), 401, 'SIWE_INVALID')).details?.reason, 'expirationTime');
      const tooLong = await signSiwe(account, { domain: 'localhost', chainId: 31337, nonce: (await client.challenge()).nonce });
      await rejects(client.createApiKey({ ...tooLong, expiresInSecs: 90 * 24 * 3600 + 1 }), 400, 'INVALID_REQUEST');
      const ninety = await client.createApiKey({ ...tooLong, expiresInSecs: 90 * 24 * 3600 });
      assert.ok(ninety.expiresAt > Date.now() + 89 * 24 * 3600_000);
    });

    it('answers each HMAC failure with its status and code', async () => {
      const { client } = await h.newUser();
      const path = '/v1/rfq/balances';
      const none = await fetch(`${h.url}${path}`);
      assert.equal(none.status, 401);
      assert.equal(((await none.json()) as { error: { code: string } }).error.code, 'UNAUTHENTICATED');

      const unknown = await rawSigned(h, client, path, Date.now(), (headers) => (headers.authorization = 'Bearer ak_unknown'));
      assert.deepEqual([unknown.status, unknown.body.error?.code], [401, 'UNAUTHENTICATED']);

      const missingSignature = await rawSigned(h, client, path, Date.now(), (headers) => delete headers['service-api-signature']);
      assert.deepEqual([missingSignature.status, missingSignature.body.error?.code], [401, 'UNAUTHENTICATED']);

      for (const skew of [-31_000, 31_000]) {
        const res = await rawSigned(h, client, path, Date.now() + skew);
        assert.deepEqual([res.status, res.body.error?.code], [401, 'TIMESTAMP_OUT_OF_WINDOW']);
        assert.equal(typeof res.body.error?.details?.serverTime, 'number');
      }
      for (const skew of [-25_000, 25_000]) {
        const res = await rawSigned(h, client, path, Date.now() + skew);
        assert.equal(res.status, 200, `skew ${skew} is inside the window`);
      }

      const ts = Date.now() - 5;
      assert.equal((await rawSigned(h, client, path, ts)).status, 200);
      const replay = await rawSigned(h, client, path, ts);
      assert.deepEqual([replay.status, replay.body.error?.code], [401, 'TIMESTAMP_REUSED']);
      assert.equal(typeof replay.body.error?.details?.serverTime, 'number');

      const bad = await rawSigned(h, client, path, Date.now(), (headers) => (headers['service-api-signature'] = Buffer.alloc(32).toString('base64')));
      assert.deepEqual([bad.status, bad.body.error?.code], [403, 'SIGNATURE_MISMATCH']);

      // The signature covers the query: the same signature on another query fails.
      const signedForOther = signRequest(client.credentials!, Date.now(), 'GET', '/v1/rfq/ledger', 'limit=5', '');
      const tampered = await fetch(`${h.url}/v1/rfq/ledger?limit=6`, { headers: { ...signedForOther } });
      assert.equal(tampered.status, 403);
    });

    it('says what to fix: the canonical string the server built on a mismatch, milliseconds for a seconds timestamp', async () => {
      const { client } = await h.newUser();
      // Signed for limit=5, sent with limit=6: the server shows the five lines and what it saw.
      const signedForOther = signRequest(client.credentials!, Date.now(), 'GET', '/v1/rfq/ledger', 'limit=5', '');
      const tampered = await fetch(`${h.url}/v1/rfq/ledger?limit=6`, { headers: { ...signedForOther } });
      const body = (await tampered.json()) as { error: { code: string; details: { lines: string[]; seen: Record<string, unknown>; canonical: string } } };
      assert.equal(body.error.code, 'SIGNATURE_MISMATCH');
      assert.equal(body.error.details.lines.length, 5);
      assert.deepEqual(body.error.details.seen, { timestamp: signedForOther['service-api-timestamp'], method: 'GET', path: '/v1/rfq/ledger', query: 'limit=6', bodyBytes: 0 });
      // Never the secret nor the expected signature.
      const text = JSON.stringify(body);
      assert.ok(!text.includes(client.credentials!.secret));
      const expected = signRequest(client.credentials!, Number(signedForOther['service-api-timestamp']), 'GET', '/v1/rfq/ledger', 'limit=6', '')['service-api-signature'];
      assert.ok(!text.includes(expected!));

      const seconds = await rawSigned(h, client, '/v1/rfq/balances', Math.floor(Date.now() / 1000));
      assert.deepEqual([seconds.status, seconds.body.error?.code, seconds.body.error?.details?.hint], [401, 'TIMESTAMP_OUT_OF_WINDOW', 'milliseconds']);
      const late = await rawSigned(h, client, '/v1/rfq/balances', Date.now() - 60_000);
      assert.equal(late.body.error?.details?.hint, undefined, 'a merely late timestamp gets no seconds hint');
    });

    it('refuses expired and revoked keys', async () => {
      const { client, account } = await h.newUser();
      const short = new RfqClient(h.url);
      await short.signIn(account, { expiresInSecs: 1 });
      await elapse(1100, 'past the key\'s one-second lifetime');
      await rejects(short.balances(), 401, 'UNAUTHENTICATED');
      const second = new RfqClient(h.url);
      await second.signIn(account);
      await client.revokeApiKey(second.credentials!.accessKey);
      await rejects(second.balances(), 401, 'UNAUTHENTICATED');
      await rejects(client.revokeApiKey('ak_does_not_exist'), 404, 'NOT_FOUND');
    });

    it('refuses a non-maker credential on a maker endpoint', async () => {
      const { client } = await h.newUser();
      await rejects(client.openRfqs(), 403, 'MAKER_SCOPE_REQUIRED');
    });

    it('serves the clock unauthenticated', async () => {
      const { serverTime } = await new RfqClient(h.url).time();
      assert.ok(Math.abs(serverTime - Date.now()) < 5000);
    });
  });
}
