/**
 * `/v0` sessions end with their authorisation, on both stores. A JWT from an
 * API-wallet login is refused once the wallet is no longer approved for the primary address (its
 * expiry passed: checked at use, the venue's answer cached API_WALLET_CHECK_CACHE_MS), and the
 * operator's `POST /admin/v1/v0/sessions/revoke` ends every session of an address issued until
 * then, while a login after it works. The node's clock is moved rather than waited for.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { ADMIN_TOKEN } from '../../helpers/harness.ts';
import { startV0Stack, type V0Stack } from '../../helpers/v0.ts';
import { API_WALLET_CHECK_CACHE_MS } from '../../../src/services/v0/session.ts';

for (const backend of backends()) {
  describe(`/v0 sessions end with their authorisation (${backend})`, () => {
    let stack: V0Stack;
    let offsetMs = 0;
    const clock = { now: () => Date.now() + offsetMs };
    before(async () => {
      stack = await startV0Stack(backend, { clock });
    });
    after(async () => stack?.close());

    it('a token from an API-wallet login is refused once the wallet has expired', async () => {
      const primary = privateKeyToAccount(generatePrivateKey());
      const agent = privateKeyToAccount(generatePrivateKey());
      await stack.simControl('/_sim/fund', { user: primary.address, account: 'spot', token: 'USDC', amount: '1' });
      const validUntil = clock.now() + 10_000;
      await stack.venueExchange(primary).approveAgent({ agentAddress: agent.address, agentName: `desk valid_until ${validUntil}` });
      const token = await stack.login(agent, primary.address);
      const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { jti?: string; agt?: string };
      assert.equal(typeof claims.jti, 'string', 'the token carries an id');
      assert.equal(claims.agt, agent.address, 'and the API wallet it was issued to');
      assert.notEqual((await stack.call('getFees', {}, { token })).status, 401, 'authorised');

      offsetMs = validUntil - Date.now() + API_WALLET_CHECK_CACHE_MS + 1000;
      const expired = await stack.call('getFees', {}, { token });
      assert.deepEqual([expired.status, expired.body.code, expired.body.operation], [401, 'UNAUTHORIZED', 'getFees'], JSON.stringify(expired.body));
      assert.match(expired.body.error, /API wallet .* no longer approved/);
      offsetMs = 0;
    });

    it('the operator revokes an address\'s sessions; a login after it works', async () => {
      const user = privateKeyToAccount(generatePrivateKey());
      const token = await stack.login(user);
      assert.notEqual((await stack.call('getFees', {}, { token })).status, 401, 'authorised');
      const response = await fetch(`${stack.harness.url}/admin/v1/v0/sessions/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
        body: JSON.stringify({ address: user.address.toLowerCase() }),
      });
      assert.equal(response.status, 200);
      const revoked = (await response.json()) as { address: string; revokedAt: number };
      assert.equal(revoked.address, user.address);
      const refused = await stack.call('getFees', {}, { token });
      assert.deepEqual([refused.status, refused.body.code], [401, 'UNAUTHORIZED']);
      assert.match(refused.body.error, /revoked/);
      const fresh = await stack.login(user);
      assert.notEqual((await stack.call('getFees', {}, { token: fresh })).status, 401, 'a new login is a new session');
      const other = await stack.login(privateKeyToAccount(generatePrivateKey()));
      assert.notEqual((await stack.call('getFees', {}, { token: other })).status, 401, 'other addresses are untouched');
    });
  });
}
