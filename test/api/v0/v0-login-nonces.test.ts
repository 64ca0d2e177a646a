/**
 * Login nonces bounded, on both stores. A nonce longer than
 * MAX_SIWE_NONCE_LENGTH is refused before anything reads or stores it: `/v0` INVALID_INPUT where a
 * 2,800-character nonce used to be a 500 (a btree row over PostgreSQL's limit), v1 SIWE_INVALID.
 * And `v0_login_nonces` is pruned by the node's maintenance round once a nonce can no longer be
 * replayed (2 x the login window after its use): a flood of logins leaves no lasting rows.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { eventually } from '../../helpers/eventually.ts';
import { startV0Stack, type V0Stack } from '../../helpers/v0.ts';
import { MAX_SIWE_NONCE_LENGTH } from '../../../src/domain/auth/siwe-nonce.ts';
import { signSiwe } from '../../../src/client/siwe.ts';
import { defaultV0Settings } from '../../../src/services/v0/venue-port.ts';

const FLOOD = 120;

for (const backend of backends()) {
  describe(`/v0 and v1 login nonces are bounded (${backend})`, () => {
    let stack: V0Stack;
    let offsetMs = 0;
    const clock = { now: () => Date.now() + offsetMs };
    const nonces = async () => Number((await stack.harness.node.store.db.selectFrom('v0_login_nonces').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    before(async () => {
      stack = await startV0Stack(backend, { clock });
    });
    after(async () => stack?.close());

    it('a nonce beyond the bound is refused with INVALID_INPUT on /v0 and SIWE_INVALID on v1, nothing stored', async () => {
      const user = privateKeyToAccount(generatePrivateKey());
      for (const length of [MAX_SIWE_NONCE_LENGTH + 1, 2800]) {
        const message = stack.siwe(user, { nonce: 'a'.repeat(length) });
        const reply = await stack.call('login', { message, signature: await user.signMessage({ message }) });
        assert.deepEqual([reply.status, reply.body.code, reply.body.operation], [400, 'INVALID_INPUT', 'login'], JSON.stringify(reply.body));
      }
      assert.equal(await nonces(), 0);
      const atBound = stack.siwe(user, { nonce: 'b'.repeat(MAX_SIWE_NONCE_LENGTH) });
      assert.equal((await stack.call('login', { message: atBound, signature: await user.signMessage({ message: atBound }) })).status, 200);

      const signed = await signSiwe(user, { domain: 'localhost', chainId: 31337, nonce: 'c'.repeat(2800) });
      const response = await fetch(`${stack.harness.url}/v1/auth/api-keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(signed) });
      const body = (await response.json()) as { error: { code: string; details?: { reason?: string } } };
      assert.deepEqual([response.status, body.error.code, body.error.details?.reason], [401, 'SIWE_INVALID', 'nonce'], JSON.stringify(body));
    });

    it('a flood of logins with fresh keys leaves no rows once their replay window has passed', async () => {
      const before = await nonces();
      for (let i = 0; i < FLOOD; i++) {
        const user = privateKeyToAccount(generatePrivateKey());
        const message = stack.siwe(user, { nonce: `${i}`.padStart(MAX_SIWE_NONCE_LENGTH, 'f'), issuedAt: new Date(clock.now()) });
        const reply = await stack.call('login', { message, signature: await user.signMessage({ message }) });
        assert.equal(reply.status, 200, JSON.stringify(reply.body));
      }
      assert.equal(await nonces(), before + FLOOD);
      // Inside the window every nonce is kept (a replay must still be refused).
      const user = privateKeyToAccount(generatePrivateKey());
      const message = stack.siwe(user, { issuedAt: new Date(clock.now()) });
      const signature = await user.signMessage({ message });
      const first = await stack.call('login', { message, signature });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      offsetMs = defaultV0Settings.loginWindowMs;
      assert.equal((await stack.call('login', { message, signature })).body.code, 'INVALID_SIGNATURE', 'replayed inside the window: refused by its nonce');
      offsetMs = 2 * defaultV0Settings.loginWindowMs + 1000;
      await eventually(nonces, (n) => n === 0, 25_000, 250);
    });
  });
}
