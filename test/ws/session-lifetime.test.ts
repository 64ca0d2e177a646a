/**
 * Session lifetime (DESIGN.md section 11) over real sockets: a revoked or expired
 * key ends its open sessions within 1 s (AUTH_REQUIRED, 4001); a deactivated or suspended maker
 * loses `openRfqs` and `quoteStatus` within 1 s, receives no more `rfq` frames, and its maker REST
 * calls are refused live (403 MAKER_NOT_APPROVED); and, on PostgreSQL, a revocation made through
 * one node stops the key on another node's REST at once and ends its sessions there too.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { rejects } from '../helpers/rejects.ts';
import { generateSecretKey } from '../../src/runtime/node.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import { INGEST_PATH, TestSocket, openSession, subscribe } from './test-socket.ts';

const BOUND_MS = 1000;

async function endsWithin(socket: TestSocket, ms: number): Promise<{ code: unknown; closedIn: number }> {
  const started = Date.now();
  const error = await socket.next((f) => f.kind === 'error', ms + 500);
  const close = await socket.closed;
  const closedIn = Date.now() - started;
  assert.equal(close, 4001);
  return { code: error.code, closedIn };
}

for (const backend of backends()) {
  describe(`session lifetime [${backend}]`, () => {
    let h: Harness;
    const sockets: TestSocket[] = [];
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => {
      for (const s of sockets) s.close();
      await h.close();
    });

    it('a revoked key ends its open session within 1 s and stops working on REST', async () => {
      const { client, account } = await h.newUser();
      await h.fund(account.address, { USDC: '100' });
      const socket = await openSession(h.url, client, sockets);
      await subscribe(socket, { topic: 'balances' });
      await socket.next((f) => f.kind === 'balanceSnapshot');
      // A second key of the same account, to revoke the first with (revoking through itself works too).
      const other = new RfqClient(h.url);
      await other.signIn(account);
      const started = Date.now();
      await other.revokeApiKey(client.credentials!.accessKey);
      const { code } = await endsWithin(socket, BOUND_MS);
      assert.equal(code, 'AUTH_REQUIRED');
      assert.ok(Date.now() - started <= BOUND_MS + 300, `session ended after ${Date.now() - started} ms`);
      await rejects(client.balances(), 401, 'UNAUTHENTICATED');
      await other.balances();
    });

    it('an expired key ends its open session within 1 s of expiry', async () => {
      const { account } = await h.newUser();
      const client = new RfqClient(h.url);
      await client.signIn(account, { expiresInSecs: 2 });
      const socket = await openSession(h.url, client, sockets);
      const expiresAt = client.login!.expiresAt;
      const error = await socket.next((f) => f.kind === 'error', 4000);
      assert.equal(error.code, 'AUTH_REQUIRED');
      assert.equal(await socket.closed, 4001);
      assert.ok(Date.now() - expiresAt <= BOUND_MS, `ended ${Date.now() - expiresAt} ms after expiry`);
    });

    it('a deactivated maker loses openRfqs and quoteStatus within 1 s, gets no more rfq frames, and is refused on maker REST', async () => {
      const maker = await h.newMaker(['ETH-USDC']);
      const taker = await h.newUser();
      const socket = await openSession(h.url, maker.client, sockets);
      await subscribe(socket, { topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
      await subscribe(socket, { topic: 'quoteStatus' });
      await subscribe(socket, { topic: 'balances' });
      await maker.client.makerQuotes();
      const started = Date.now();
      await h.admin.putMaker(maker.account.address, { active: false, pairs: ['ETH-USDC'], settlementModes: ['permit2'] });
      const error = await socket.next((f) => f.kind === 'error', BOUND_MS + 500);
      assert.equal(error.code, 'MAKER_NOT_APPROVED');
      assert.ok(Date.now() - started <= BOUND_MS + 300, `maker topics dropped after ${Date.now() - started} ms`);
      const dropped = [await socket.next(), await socket.next()].map((f) => [f.kind, f.topic]);
      assert.deepEqual(dropped, [['unsubscribed', 'openRfqs'], ['unsubscribed', 'quoteStatus']]);
      // The live check: the credential is still maker-scoped, but the maker is no longer active.
      await rejects(maker.client.makerQuotes(), 403, 'MAKER_NOT_APPROVED');
      await rejects(maker.client.openRfqs(), 403, 'MAKER_NOT_APPROVED');
      await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '5000', windowMs: 1000 });
      // A balance frame the test causes after the RFQ was created: the dispatcher keeps outbox
      // order, so an rfq frame to this socket would have come before it.
      await h.admin.adjustBalance({ address: maker.account.address, token: 'USDC', amount: '1', memo: 'after the RFQ' });
      await socket.next((f) => f.kind === 'balanceSnapshot');
      assert.equal(socket.received.filter((f) => f.kind === 'rfq').length, 0, 'a deactivated maker received an rfq frame');
      // The session itself lives on (its key is fine) and may not take the maker topics back.
      socket.send({ kind: 'subscribe', topic: 'quoteStatus' });
      assert.equal((await socket.next((f) => f.kind === 'error')).code, 'UNSUPPORTED_CHANNEL');
      socket.send({ kind: 'ping' });
      assert.equal((await socket.next((f) => f.kind === 'pong')).kind, 'pong');
    });

    it('a suspended maker loses its price ingest socket within 1 s', async () => {
      const maker = await h.newMaker(['ETH-USDC']);
      const ingest = await openSession(h.url, maker.client, sockets, INGEST_PATH);
      await h.node.store.db.updateTable('makers').set({ suspended_until: Date.now() + 60_000 }).where('maker_id', '=', maker.makerId).execute();
      const { code } = await endsWithin(ingest, BOUND_MS);
      assert.equal(code, 'AUTH_REQUIRED');
    });
  });
}

describe('session lifetime across two nodes [postgres]', { skip: !backends().includes('postgres') && 'needs TEST_DATABASE_URL' }, () => {
  let database: TestDatabase;
  let a: Harness;
  let b: Harness;
  const sockets: TestSocket[] = [];
  before(async () => {
    database = await createTestDatabase('postgres');
    const secretKey = generateSecretKey();
    a = await startHarness('postgres', { database, secretKey, workers: new Set(['dispatch']) });
    b = await startHarness('postgres', { database, secretKey, seed: false, workers: new Set(['dispatch']) });
  });
  after(async () => {
    for (const s of sockets) s.close();
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('a key revoked through node B stops on node A at once (REST) and within 1 s (socket)', async () => {
    const { client, account } = await a.newUser();
    const socket = await openSession(a.url, client, sockets);
    // Warm node A's credential cache so only the live check can refuse the next request.
    await client.balances();
    const onB = new RfqClient(b.url);
    await onB.signIn(account);
    await onB.revokeApiKey(client.credentials!.accessKey);
    await rejects(client.balances(), 401, 'UNAUTHENTICATED');
    const { code } = await endsWithin(socket, BOUND_MS);
    assert.equal(code, 'AUTH_REQUIRED');
  });

  it('a maker deactivated through node B is refused on node A at once and loses its topics there', async () => {
    const maker = await a.newMaker(['ETH-USDC']);
    const socket = await openSession(a.url, maker.client, sockets);
    await subscribe(socket, { topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
    await maker.client.makerQuotes();
    await b.admin.putMaker(maker.account.address, { active: false, pairs: ['ETH-USDC'], settlementModes: ['permit2'] });
    await rejects(maker.client.makerQuotes(), 403, 'MAKER_NOT_APPROVED');
    assert.equal((await socket.next((f) => f.kind === 'error', BOUND_MS + 500)).code, 'MAKER_NOT_APPROVED');
    assert.deepEqual(await socket.next(), { kind: 'unsubscribed', topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
  });
});
