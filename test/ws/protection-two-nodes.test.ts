/**
 * Maker protection across nodes on one PostgreSQL (DESIGN.md section 11): a maker with
 * flagged sessions on two nodes loses nothing when one closes and all its open quotes when the
 * other does (the taker on the other node told); a node process SIGKILLed with the maker's last
 * session is detected by the survivor's heartbeat sweep within the timeout; market-maker protection
 * trips once for two accepts at once through different nodes, and its frame reaches the maker on
 * the other node.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/backends.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from '../helpers/harness.ts';
import { spawnNode, type SpawnedNode } from '../helpers/spawn-node.ts';
import { INSTRUMENT, flaggedSession, fundedTaker, quotedRfq, quoteStatusWithin } from '../helpers/protection.ts';
import { openSession, subscribe, type Frame, type TestSocket } from './test-socket.ts';
import { generateSecretKey } from '../../src/runtime/node.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import { waitUntil } from '../helpers/eventually.ts';

/** Short, so the dead-node case runs in seconds; the default is 5 s. */
const HEARTBEAT_TIMEOUT_MS = 1500;

describe('maker protection across two nodes [postgres]', { skip: !backends().includes('postgres') && 'needs TEST_DATABASE_URL' }, () => {
  let database: TestDatabase;
  let a: Harness;
  let b: Harness;
  let child: SpawnedNode | null = null;
  const secretKey = generateSecretKey();
  const sockets: TestSocket[] = [];
  before(async () => {
    database = await createTestDatabase('postgres');
    const ws = { heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS };
    a = await startHarness('postgres', { database, secretKey, ws });
    b = await startHarness('postgres', { database, secretKey, ws, seed: false, workers: new Set(['dispatch']) });
  });
  after(async () => {
    for (const s of sockets) s.close();
    await child?.kill();
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  /** The same credential against another node. */
  const on = (url: string, client: RfqClient) => new RfqClient(url, client.credentials);

  it('closing one of two flagged sessions cancels nothing; closing the other cancels every open quote and tells the taker on the other node', async () => {
    const maker = await a.newMaker(['ETH-USDC']);
    const taker = await fundedTaker(a);
    const takerSocket = await openSession(a.url, taker, sockets);
    await subscribe(takerSocket, { topic: 'quotes' });
    const onA = await flaggedSession(a.url, maker.client, sockets);
    const onB = await flaggedSession(b.url, on(b.url, maker.client), sockets);
    assert.deepEqual([onA.health.cancelOnDisconnect, onB.health.cancelOnDisconnect], [true, true]);
    const first = await quotedRfq(taker, maker.client);
    const second = await quotedRfq(taker, on(b.url, maker.client));
    const won = await quotedRfq(taker, maker.client);
    await taker.accept(won.rfqId, { quoteId: won.quoteId });
    const sessions = (await b.admin.getMaker(maker.account.address)).sessions;
    assert.deepEqual(sessions.map((s) => s.nodeId).sort(), [a.node.context.presence.nodeId, b.node.context.presence.nodeId].sort());
    takerSocket.frames.length = 0;

    onA.socket.close();
    await onA.socket.closed;
    // The session on A has ended in the store, and a protection sweep of each node begun after
    // that has ended: either would have cancelled the quote.
    await waitUntil(async () => (await b.admin.getMaker(maker.account.address)).sessions.map((s) => s.nodeId), (live) => live.length === 1 && live[0] === b.node.context.presence.nodeId, 'the session on A ended in the store');
    await Promise.all([a.node.context.presence.afterSweep(), b.node.context.presence.afterSweep()]);
    assert.equal(await quoteStatusWithin(maker.client, first.quoteId, 'SUBMITTED', 0), 'SUBMITTED', 'the session on B still holds it');
    assert.deepEqual(takerSocket.frames.filter((f) => f.status === 'CANCELLED'), []);

    const closedAt = Date.now();
    onB.socket.close();
    const cancelled = new Set<unknown>();
    while (cancelled.size < 2) cancelled.add((await takerSocket.next((f) => f.kind === 'quoteUpdate' && f.status === 'CANCELLED', 2000)).quoteId);
    assert.ok(Date.now() - closedAt < 2000, 'within 2 s');
    assert.deepEqual([...cancelled].sort(), [first.quoteId, second.quoteId].sort());
    assert.equal(await quoteStatusWithin(maker.client, won.quoteId, 'SELECTED', 0), 'SELECTED');
  });

  it('a node SIGKILLed with the maker\'s last flagged session: the survivor cancels its quotes within the heartbeat timeout', async () => {
    child = await spawnNode({ store: database.location, adminToken: ADMIN_TOKEN, secretKey, port: 0, workers: ['dispatch'], ws: { heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS }, logLevel: 'fatal', rateLimit: { perKeyPerSec: 100_000, perSourcePerSec: 100_000 } });
    const maker = await a.newMaker(['ETH-USDC']);
    const taker = await fundedTaker(a);
    const takerSocket = await openSession(a.url, taker, sockets);
    await subscribe(takerSocket, { topic: 'quotes' });
    const onChild = await flaggedSession(child.url, on(child.url, maker.client), sockets);
    assert.equal(onChild.health.cancelOnDisconnect, true);
    const open = await quotedRfq(taker, maker.client);
    const won = await quotedRfq(taker, maker.client);
    await taker.accept(won.rfqId, { quoteId: won.quoteId });
    takerSocket.frames.length = 0;

    const killedAt = Date.now();
    await child.kill();
    const update = await takerSocket.next((f) => f.kind === 'quoteUpdate' && f.status === 'CANCELLED', HEARTBEAT_TIMEOUT_MS + 2000);
    const took = Date.now() - killedAt;
    assert.equal(update.quoteId, open.quoteId);
    assert.ok(took <= HEARTBEAT_TIMEOUT_MS + 1000, `detected and cancelled ${took} ms after the kill`);
    assert.equal(await quoteStatusWithin(maker.client, won.quoteId, 'SELECTED', 0), 'SELECTED');
    assert.deepEqual((await a.admin.getMaker(maker.account.address)).sessions, []);
  });

  it('two accepts at once through two nodes on the last unit of headroom trip it once; the maker on the other node hears it', async () => {
    const maker = await a.newMaker(['ETH-USDC']);
    await maker.client.putProtection({ instrumentId: INSTRUMENT, windowMs: 60_000, maxSelectedQuotes: 1 });
    const makerSocket = await openSession(b.url, on(b.url, maker.client), sockets);
    await subscribe(makerSocket, { topic: 'quoteStatus' });
    // The marker below: a balance frame the test causes once both accepts have ended.
    await subscribe(makerSocket, { topic: 'balances' });
    await makerSocket.next((f) => f.kind === 'balanceSnapshot'); // the baseline
    const takers = [await fundedTaker(a), await fundedTaker(a)];
    const x = await quotedRfq(takers[0]!, maker.client);
    const y = await quotedRfq(takers[1]!, maker.client);
    const spare = await quotedRfq(takers[0]!, maker.client);
    const outcomes = await Promise.allSettled([takers[0]!.accept(x.rfqId, { quoteId: x.quoteId }), on(b.url, takers[1]!).accept(y.rfqId, { quoteId: y.quoteId })]);
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1, JSON.stringify(outcomes.map((o) => o.status)));
    const trip = await makerSocket.next((f) => f.kind === 'protection');
    assert.equal(trip.reason, 'maxSelectedQuotes');
    assert.equal(await quoteStatusWithin(maker.client, spare.quoteId, 'CANCELLED', 2000), 'CANCELLED');
    // Both accepts' transactions ended before this one began, so its frame comes after any trip
    // either of them wrote (the dispatcher keeps outbox order).
    await a.admin.adjustBalance({ address: maker.account.address, token: 'USDC', amount: '1', memo: 'after the accepts' });
    const before: Frame[] = [];
    await makerSocket.next((f) => f.kind === 'balanceSnapshot' || (before.push(f), false));
    assert.deepEqual(before.filter((f) => f.kind === 'protection'), [], 'one trip');
  });
});
