/** `/v0` login and bearer tokens: every error code of the login path, API wallets, both layouts. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { startV0Stack, type V0Stack } from '../../helpers/v0.ts';

for (const backend of backends()) {
  describe(`/v0 login (${backend})`, () => {
    let stack: V0Stack;
    before(async () => {
      stack = await startV0Stack(backend);
    });
    after(async () => stack?.close());

    it('logs in, answers in both layouts with responseMetadata, and refuses each bad login with its code', async () => {
      const user = privateKeyToAccount(generatePrivateKey());
      const message = stack.siwe(user);
      const signature = await user.signMessage({ message });
      const wrapped = await stack.call('login', { message, signature }, { layout: 'wrapped' });
      assert.equal(wrapped.status, 200);
      assert.equal(typeof wrapped.body.data.token, 'string');
      assert.match(wrapped.body.responseMetadata.requestId, /^[0-9a-f-]{36}$/);
      assert.equal(typeof wrapped.body.responseMetadata.timestamp, 'number');
      // The same (address, nonce) is accepted once.
      const again = await stack.call('login', { message, signature }, { layout: 'flat' });
      assert.equal(again.status, 401);
      assert.equal(again.body.code, 'INVALID_SIGNATURE');
      assert.equal(again.body.operation, 'login');
      assert.equal(typeof again.body.error, 'string');
      assert.equal(typeof again.body.responseMetadata.timestamp, 'number');

      const missing = await stack.call('login', { message });
      assert.deepEqual([missing.status, missing.body.code], [400, 'INVALID_INPUT']);
      const noMessage = await stack.call('login', { signature });
      assert.deepEqual([noMessage.status, noMessage.body.code], [400, 'INVALID_INPUT']);

      const wrongStatement = stack.siwe(user, { statement: 'sign in with ethereum to the app.' });
      const r1 = await stack.call('login', { message: wrongStatement, signature: await user.signMessage({ message: wrongStatement }) });
      assert.deepEqual([r1.status, r1.body.code], [400, 'INVALID_STATEMENT']);

      const other = privateKeyToAccount(generatePrivateKey());
      const forged = stack.siwe(user);
      const r2 = await stack.call('login', { message: forged, signature: await other.signMessage({ message: forged }) });
      assert.deepEqual([r2.status, r2.body.code], [401, 'INVALID_SIGNATURE']);

      for (const overrides of [{ domain: 'evil.example' }, { chainId: 1 }, { issuedAt: new Date(Date.now() - 10 * 60_000) }]) {
        const text = stack.siwe(user, overrides);
        const r = await stack.call('login', { message: text, signature: await user.signMessage({ message: text }) });
        assert.deepEqual([r.status, r.body.code], [401, 'INVALID_SIGNATURE'], JSON.stringify(overrides));
      }
    });

    it('UNAUTHORIZED for a missing, malformed, tampered or expired token; USER_NOT_FOUND with no account', async () => {
      const user = privateKeyToAccount(generatePrivateKey());
      const token = await stack.login(user);
      const none = await stack.call('getFees', {});
      assert.deepEqual([none.status, none.body.code, none.body.operation], [401, 'UNAUTHORIZED', 'getFees']);
      const malformed = await stack.call('getFees', {}, { token: 'not-a-jwt' });
      assert.equal(malformed.body.code, 'UNAUTHORIZED');
      const [h, p, s] = token.split('.');
      const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
      payload.sub = privateKeyToAccount(generatePrivateKey()).address;
      const tampered = await stack.call('getFees', {}, { token: `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}` });
      assert.equal(tampered.body.code, 'UNAUTHORIZED');
      const expired = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(user.address).setIssuer('rfq-service').setAudience('rfq-service/v0').setJti('x').setIssuedAt(1).setExpirationTime(2).sign(stack.harness.node.context.v0.deps.jwtKey);
      const old = await stack.call('getFees', {}, { token: expired });
      assert.deepEqual([old.status, old.body.code], [401, 'UNAUTHORIZED']);

      const balances = await stack.call('getBalances', {}, { token });
      assert.deepEqual([balances.status, balances.body.code], [404, 'USER_NOT_FOUND']);
      const unknownOp = await stack.call('getEverything', {}, { token });
      assert.deepEqual([unknownOp.status, unknownOp.body.code], [400, 'VALIDATION_ERROR']);
      const badLayout = await fetch(`${stack.harness.url}/v0`, { method: 'POST', headers: { 'content-type': 'application/json', 'v0-layout': 'sideways' }, body: JSON.stringify({ operation: 'getTokens' }) });
      assert.equal(badLayout.status, 400);
      const notJson = await fetch(`${stack.harness.url}/v0`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
      assert.equal(notJson.status, 400);
      assert.equal(((await notJson.json()) as { code: string }).code, 'VALIDATION_ERROR');
    });

    it('INTERNAL_ERROR for an unexpected failure: 500 with a request id, nothing internal revealed; the next request answers', async () => {
      const user = privateKeyToAccount(generatePrivateKey());
      await stack.deposit(user, 'USDC', '5');
      const token = await stack.login(user);
      await stack.waitFor(async () => (await stack.call('getFees', {}, { token })).status === 200, 'the account after the deposit', 30_000);
      // A real store failure, not a stub: the fee table is briefly missing under the running node.
      const db = stack.harness.node.store.db;
      await sql`ALTER TABLE v0_fee_rates RENAME TO v0_fee_rates_away`.execute(db);
      let failed: Awaited<ReturnType<V0Stack['call']>>;
      try {
        failed = await stack.call('getFees', {}, { token, layout: 'wrapped' });
      } finally {
        await sql`ALTER TABLE v0_fee_rates_away RENAME TO v0_fee_rates`.execute(db);
      }
      assert.deepEqual([failed.status, failed.body.code, failed.body.operation, failed.body.error], [500, 'INTERNAL_ERROR', 'getFees', 'internal error']);
      assert.match(failed.body.responseMetadata.requestId, /^[0-9a-f-]{36}$/);
      assert.doesNotMatch(JSON.stringify(failed.body), /v0_fee_rates|relation|select/i, 'no SQL or table name leaks');
      const again = await stack.call('getFees', {}, { token });
      assert.equal(again.status, 200);
    });

    it('logs in through an approved API wallet as the primary address; an unapproved one is refused', async () => {
      const primary = privateKeyToAccount(generatePrivateKey());
      const agent = privateKeyToAccount(generatePrivateKey());
      await stack.simControl('/_sim/fund', { user: primary.address, account: 'spot', token: 'USDC', amount: '1' });
      await stack.venueExchange(primary).approveAgent({ agentAddress: agent.address, agentName: 'desk' });
      const token = await stack.login(agent, primary.address);
      const sub = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sub;
      assert.equal(sub, primary.address);
      const stranger = privateKeyToAccount(generatePrivateKey());
      const message = stack.siwe(stranger);
      const refused = await stack.call('login', { message, signature: await stranger.signMessage({ message }), primaryAddress: primary.address });
      assert.deepEqual([refused.status, refused.body.code], [401, 'INVALID_SIGNATURE']);
      const badPrimary = await stack.call('login', { message: stack.siwe(stranger), signature: '0x00', primaryAddress: '0x1234' });
      assert.equal(badPrimary.body.code, 'INVALID_INPUT');
    });

    it('getTokens and getMarkets are public, in both layouts', async () => {
      const flat = await stack.call('getTokens', {}, { layout: 'flat' });
      assert.equal(flat.status, 200);
      assert.equal(flat.body.operation, 'getTokens');
      assert.ok(flat.body.tokens.some((t: { name: string; weiDecimals: number }) => t.name === 'HYPE' && t.weiDecimals === 8));
      const wrapped = await stack.call('getMarkets', {}, { layout: 'wrapped' });
      assert.equal(wrapped.status, 200);
      assert.ok(wrapped.body.data.markets.some((m: { baseToken: string; quoteToken: string; name: string }) => m.baseToken === 'HYPE' && m.quoteToken === 'USDC' && m.name === 'HYPE/USDC'));
      assert.equal(wrapped.body.operation, undefined);
    });
  });
}
