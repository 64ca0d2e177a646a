/**
 * What is refused before a route runs, answered as the spec and v1 say, on both
 * stores. `/v0`: bad text in any field, the login message included, is that operation's input
 * error with the operation named (`INVALID_INPUT` on login, `VALIDATION_ERROR` elsewhere); a body
 * over the limit 413 and a body that is not JSON 415, as on v1. Signed v1 and operator routes
 * authenticate before they judge the body: malformed JSON from an unauthenticated caller is 401,
 * from an authenticated one 400.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ApiError } from '../../src/client/http.ts';
import { backends } from '../helpers/backends.ts';
import { ADMIN_TOKEN } from '../helpers/harness.ts';
import { startV0Stack, type V0Stack } from '../helpers/v0.ts';

for (const backend of backends()) {
  describe(`refusals before the route runs [${backend}]`, () => {
    let stack: V0Stack;
    const post = async (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
      const response = await fetch(`${stack.harness.url}${path}`, { method: 'POST', headers, body });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };
    before(async () => {
      stack = await startV0Stack(backend);
    });
    after(async () => stack?.close());

    it('/v0: bad text is the operation\'s input error, the operation named; a large body 413, not JSON 415', async () => {
      const user = privateKeyToAccount(generatePrivateKey());
      const message = stack.siwe(user).replace('Sign in', 'Sign\u0000in');
      const login = await stack.call('login', { message, signature: await user.signMessage({ message }) });
      assert.deepEqual([login.status, login.body.code, login.body.operation], [400, 'INVALID_INPUT', 'login'], JSON.stringify(login.body));
      assert.match(login.body.error, /message must not contain control characters/);
      const surrogate = await stack.call('login', { message: 'x', signature: '0x\ud800' });
      assert.deepEqual([surrogate.status, surrogate.body.code, surrogate.body.operation], [400, 'INVALID_INPUT', 'login']);
      const token = await stack.login(user);
      const order = await stack.call('getWithdrawalStatus', { withdrawalId: 'a\u0000b' }, { token });
      assert.deepEqual([order.status, order.body.code, order.body.operation], [400, 'VALIDATION_ERROR', 'getWithdrawalStatus'], JSON.stringify(order.body));

      const large = await post('/v0', JSON.stringify({ operation: 'login', message: 'x'.repeat(300 * 1024) }));
      assert.deepEqual([large.status, large.body.code, large.body.operation], [413, 'PAYLOAD_TOO_LARGE', null], JSON.stringify(large.body));
      assert.equal(typeof large.body.responseMetadata.timestamp, 'number', 'the v0 envelope');
      const plain = await post('/v0', JSON.stringify({ operation: 'getTokens' }), { 'content-type': 'text/plain' });
      assert.deepEqual([plain.status, plain.body.code], [415, 'UNSUPPORTED_MEDIA_TYPE']);
      const broken = await post('/v0', '{"operation":"login",');
      assert.deepEqual([broken.status, broken.body.code, broken.body.operation], [400, 'VALIDATION_ERROR', null]);
    });

    it('signed v1 and operator routes: malformed JSON is 401 unauthenticated, 400 authenticated', async () => {
      for (const path of ['/v1/rfq/requests', '/admin/v1/balances/adjust']) {
        const anonymous = await post(path, '{bad');
        assert.equal(anonymous.status, 401, `${path}: ${JSON.stringify(anonymous.body)}`);
        assert.match(anonymous.body.error.code, /UNAUTHENTICATED|ADMIN_UNAUTHORIZED/);
      }
      const operator = await post('/admin/v1/balances/adjust', '{bad', { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` });
      assert.deepEqual([operator.status, operator.body.error.code], [400, 'INVALID_REQUEST']);
      const { client } = await stack.harness.newUser();
      const signed = await client.signed('POST', '/v1/rfq/requests', { rawBody: '{bad' }).then(() => null, (e: unknown) => e);
      assert.ok(signed instanceof ApiError, String(signed));
      assert.deepEqual([signed.status, signed.code, signed.details?.errors], [400, 'INVALID_REQUEST', [{ field: '(body)', reason: 'json', message: 'body is not valid JSON' }]]);
      // A bad byte in the body of an unauthenticated request is 401 too: nothing about the body is judged first.
      const nul = await post('/v1/rfq/requests', JSON.stringify({ instrumentId: 'a\u0000' }));
      assert.equal(nul.status, 401);
    });
  });
}
