/**
 * Two nodes running the chain follower, the deposit head scanner and the custody broadcaster on
 * one PostgreSQL and one chain: every deposit is credited once, every custody
 * transaction is signed once per nonce (no nonce used by two transfers, no transfer signed twice),
 * every withdrawal is paid once. PostgreSQL only: an in-memory PGlite cannot be shared.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseUnits } from 'viem';
import { backends, createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { generateSecretKey } from '../../../src/runtime/node.ts';
import { startTestChain, type TestChain } from '../../helpers/chain.ts';
import { balanceOf, depositOnChain, requestWithdrawal, settledInvariants, waitFor, wallet, withdrawal } from './helpers.ts';

const USDC = (n: string) => parseUnits(n, 6);
const USERS = 4;

describe('funds on two nodes [postgres]', { skip: !backends().includes('postgres') && 'needs TEST_DATABASE_URL' }, () => {
  let chain: TestChain;
  let database: TestDatabase;
  let a: Harness;
  let b: Harness;

  before(async () => {
    chain = await startTestChain();
    database = await createTestDatabase('postgres');
    const secretKey = generateSecretKey();
    // Both nodes run every worker: two followers, two head scanners, two broadcasters.
    a = await startHarness('postgres', { database, secretKey, chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses });
    b = await startHarness('postgres', { database, secretKey, chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, seed: false });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    await chain?.stop();
  });

  it('each deposit credited once, each custody transaction signed once per nonce, each withdrawal paid once', async () => {
    const users = await Promise.all(Array.from({ length: USERS }, (_, i) => wallet(i % 2 === 0 ? a : b, chain)));
    // One after the other (the test tokens' minter has one nonce); both nodes follow meanwhile.
    for (const [i, u] of users.entries()) {
      await depositOnChain(chain, u.account, 'USDC', USDC(String(10 + i)));
      await depositOnChain(chain, u.account, 'USDC', USDC('1'));
    }
    for (const [i, u] of users.entries()) await waitFor('credited', () => balanceOf(u.client, 'USDC'), (bal) => bal?.total === String(11 + i));
    const credited = await a.node.store.db.selectFrom('deposits').select(['tx_hash', 'log_index', 'status']).execute();
    assert.equal(credited.length, USERS * 2, 'one deposit row per transfer');
    assert.ok(credited.every((d) => d.status === 'COMPLETED'));
    const credits = await a.node.store.db.selectFrom('ledger_postings').select('posting_id').where('source', '=', 'DEPOSIT').where('book', '=', 'user').execute();
    assert.equal(credits.length, USERS * 2, 'one credit per deposit');

    // Withdrawals approved through either node, signed and sent by whichever broadcaster gets there.
    const ids = await Promise.all(users.map(async (u, i) => {
      const { withdrawalId } = await requestWithdrawal(u.client, { token: 'USDC', amount: String(5 + i) });
      await (i % 2 === 0 ? b : a).admin.call('POST', `/withdrawals/${withdrawalId}/approve`);
      return withdrawalId;
    }));
    for (const [i, u] of users.entries()) {
      const done = await waitFor('withdrawal ended', () => withdrawal(u.client, ids[i]!), (w) => ['COMPLETED', 'FAILED', 'UNRESOLVED'].includes(w.status));
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done));
      assert.equal(await chain.balanceOf('USDC', u.account.address), USDC(String(5 + i)), 'paid once');
    }
    const attempts = await a.node.store.db.selectFrom('custody_tx_attempts').select(['transfer_id', 'attempt', 'nonce']).execute();
    const transfers = await a.node.store.db.selectFrom('custody_transfers').select(['id', 'nonce', 'status']).where('purpose', '=', 'withdrawal').execute();
    assert.equal(transfers.length, USERS);
    assert.equal(attempts.filter((t) => t.attempt === 0).length, USERS, 'each transfer signed once');
    assert.equal(new Set(attempts.map((t) => t.nonce)).size, new Set(attempts.map((t) => t.transfer_id)).size, 'no nonce shared by two transfers');
    assert.equal(new Set(transfers.map((t) => t.nonce)).size, USERS);
    await settledInvariants(a, chain);
    await settledInvariants(b, chain);
  });
});
