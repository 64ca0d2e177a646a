/**
 * Two service nodes on one PostgreSQL: events committed by node B reach a session on node A (a
 * maker's quote, an auction B closes, a price ladder B ingests), woken by B's NOTIFY. PostgreSQL
 * only: an in-memory PGlite cannot be shared by two nodes.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { generateSecretKey } from '../../src/runtime/node.ts';
import pg from 'pg';
import { INGEST_PATH, TestSocket, openSession, subscribe, type Frame } from './test-socket.ts';
import { eventually } from '../helpers/eventually.ts';

describe('ws across two nodes [postgres]', { skip: !backends().includes('postgres') && 'needs TEST_DATABASE_URL' }, () => {
  let database: TestDatabase;
  let a: Harness;
  let b: Harness;
  const sockets: TestSocket[] = [];
  before(async () => {
    database = await createTestDatabase('postgres');
    // A serves the taker and closes no auctions; B takes the maker's traffic and closes auctions.
    // One sealing key for both, as in a deployment: either node must read secrets the other issued.
    const secretKey = generateSecretKey();
    a = await startHarness('postgres', { database, secretKey, workers: new Set(['dispatch']) });
    b = await startHarness('postgres', { database, secretKey, workers: new Set(['auctions', 'settlement', 'dispatch']) });
  });
  after(async () => {
    for (const s of sockets) s.close();
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('a taker on node A sees a quote submitted through node B, the auction B closes, and B\'s prices', async () => {
    const taker = await a.newUser();
    await a.admin.adjustBalance({ address: taker.account.address, token: 'USDC', amount: '100000', memo: 'funding' });
    const maker = await b.newMaker(['ETH-USDC']);
    const socket = await openSession(a.url, taker.client, sockets);
    await subscribe(socket, { topic: 'quotes' });
    await subscribe(socket, { topic: 'rfqStatus' });
    await subscribe(socket, { topic: 'prices', instrumentId: 'ETH-USDC-SPOT' });
    // The maker watches its quotes from node A too (its credential is shared through the database).
    const makerSocket = await openSession(a.url, maker.client, sockets);
    await subscribe(makerSocket, { topic: 'quoteStatus' });
    const wakesBefore = a.node.context.bus.remoteWakes;

    const rfq = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '5000', autoAccept: true, windowMs: 1000 });
    assert.equal((await socket.next((f) => f.kind === 'rfqStatus')).status, 'PENDING');
    const makerOnB = new (taker.client.constructor as new (url: string, c: unknown) => typeof maker.client)(b.url, maker.client.credentials);
    const quote = await makerOnB.submitQuote({ rfqId: rfq.rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '3000' } });
    const update = await socket.next((f) => f.kind === 'quoteUpdate');
    assert.deepEqual([update.quoteId, update.rfqId, (update.makerReceives as Frame).amount], [quote.quoteId, rfq.rfqId, '3000']);

    // Node B's auction worker selects the quote at the deadline; node A has no auction worker.
    const quoted = await socket.next((f) => f.kind === 'rfqStatus', 10_000);
    assert.deepEqual([quoted.id, quoted.status], [rfq.rfqId, 'QUOTED']);
    const selected = await makerSocket.next((f) => f.status === 'SELECTED');
    assert.deepEqual([selected.kind, selected.quoteId], ['quoteStatus', quote.quoteId]);
    assert.ok(a.node.context.bus.remoteWakes > wakesBefore, 'node A was woken by node B');

    const ingest = await openSession(b.url, maker.client, sockets, INGEST_PATH);
    ingest.send({ kind: 'ladder', instrumentId: 'ETH-USDC-SPOT', bids: [['2990', '2']], asks: [['3010', '1.5']], ts: Date.now() });
    const tick = await socket.next((f) => f.kind === 'price');
    assert.deepEqual([tick.bid, tick.ask], [{ price: '2990', size: '2' }, { price: '3010', size: '1.5' }]);
    // The maker's disconnect on B withdraws its prices on A too.
    ingest.close();
    const withdrawn = await socket.next((f) => f.kind === 'price');
    assert.deepEqual([withdrawn.bid, withdrawn.ask], [null, null]);
  });

  it('an instrument listed moments ago through node A: node B takes its ladders and its prices subscriptions (found by the simulation)', async () => {
    // Node B's reference data is cached now, before the listing through node A.
    await b.node.context.service.refdata.current();
    await a.admin.putToken('SOL', { decimals: 9 });
    await a.admin.putInstrument('SOL-USDC-SPOT', { base: 'SOL', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 250 });
    const maker = await a.newMaker(['SOL-USDC']);
    const taker = await a.newUser();
    const socket = await openSession(a.url, taker.client, sockets);
    await subscribe(socket, { topic: 'prices', instrumentId: 'SOL-USDC-SPOT' });
    // A session on node B may hold the new instrument's prices too (it was refused UNSUPPORTED_CHANNEL).
    const onB = await openSession(b.url, taker.client, sockets);
    assert.deepEqual(await subscribe(onB, { topic: 'prices', instrumentId: 'SOL-USDC-SPOT' }), { kind: 'subscribed', topic: 'prices', instrumentId: 'SOL-USDC-SPOT' });
    const ingest = await openSession(b.url, maker.client, sockets, INGEST_PATH);
    ingest.send({ kind: 'ladder', instrumentId: 'SOL-USDC-SPOT', bids: [['2970', '1']], asks: [['3030', '1']], ts: Date.now() });
    const answer = await socket.next((f) => f.kind === 'price', 5000).catch(async () => ingest.next(() => true, 100));
    assert.deepEqual([answer.kind, answer.bid, answer.ask], ['price', { price: '2970', size: '1' }, { price: '3030', size: '1' }], JSON.stringify(answer));
    ingest.close();
  });

  it('the LISTEN connection reconnects after its backend is terminated: prices from node B still reach node A', async () => {
    const taker = await a.newUser();
    const maker = await b.newMaker(['ETH-USDC']);
    const socket = await openSession(a.url, taker.client, sockets);
    await subscribe(socket, { topic: 'prices', instrumentId: 'ETH-USDC-SPOT' });
    const admin = new pg.Client({ connectionString: (database.location as { url: string }).url });
    await admin.connect();
    try {
      const listeners = async () =>
        (await admin.query<{ pid: number }>("select pid from pg_stat_activity where datname = current_database() and application_name = 'rfq-listen'")).rows.map((r) => r.pid);
      const killed = await listeners();
      assert.equal(killed.length, 2, 'one LISTEN connection per node');
      for (const pid of killed) await admin.query('select pg_terminate_backend($1)', [pid]);
      // Each node opens a new one on its own (bounded wait: reconnects back off up to a few seconds).
      const fresh = await eventually(async () => (await listeners()).filter((pid) => !killed.includes(pid)), (pids) => pids.length >= 2, 10_000, 100);
      assert.equal(fresh.length, 2, 'both nodes listen again');

      const ingest = await openSession(b.url, maker.client, sockets, INGEST_PATH);
      ingest.send({ kind: 'ladder', instrumentId: 'ETH-USDC-SPOT', bids: [['2980', '1']], asks: [['3020', '1']], ts: Date.now() });
      const tick = await socket.next((f) => f.kind === 'price' && (f.bid as Frame | null)?.price === '2980');
      assert.deepEqual([tick.bid, tick.ask], [{ price: '2980', size: '1' }, { price: '3020', size: '1' }]);
      ingest.close();
    } finally {
      await admin.end();
    }
  });
});
