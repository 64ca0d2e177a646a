/**
 * The maker's kill switches (DESIGN.md section 15) on each backend: cancel-all (optionally per
 * instrument) as the maker's own cancels, the dead man's switch (armed, pushed back, disarmed,
 * fired by the sweep), market-maker protection's `frozenMs` re-arming a trip; and on PostgreSQL
 * the switch fired by another node when the node that armed it was stopped or SIGKILLed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backends, createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from '../../helpers/harness.ts';
import { useWsHarness } from '../../helpers/ws-harness.ts';
import { spawnNode, type SpawnedNode } from '../../helpers/spawn-node.ts';
import { elapse, eventually } from '../../helpers/eventually.ts';
import { rejects } from '../../helpers/rejects.ts';
import { INSTRUMENT, fundedTaker, quotedRfq, quoteStatusWithin } from '../../helpers/protection.ts';
import { subscribe } from '../../ws/test-socket.ts';
import { generateSecretKey } from '../../../src/runtime/node.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';

/** The maker's view of its quotes' statuses, by quote id. */
async function statuses(maker: RfqClient): Promise<Map<string, string>> {
  return new Map((await maker.makerQuotes({ limit: 100 })).items.map((q) => [q.quoteId, q.status]));
}

/**
 * Resolves once the wall clock is past `at` and a protection sweep of the node begun after that
 * has ended: a switch due by `at` (the thing that must not happen) would have fired in it.
 */
async function pastSweep(h: Harness, at: number, what: string): Promise<void> {
  await elapse(at + 1 - Date.now(), `the wall clock passes the moment ${what}`);
  await h.node.context.presence.afterSweep();
}

for (const backend of backends()) {
  describe(`maker kill switches [${backend}]`, () => {
    const ws = useWsHarness(backend);

    it('cancel-all cancels the maker\'s open quotes as its own cancels, per instrument when named, and leaves the selected ones', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC', 'BTC-USDC']);
      const other = await ws.h.newMaker(['ETH-USDC']);
      const taker = await fundedTaker(ws.h);
      const makerSocket = await ws.session(maker.client);
      await subscribe(makerSocket, { topic: 'quoteStatus' });
      const eth = [await quotedRfq(taker, maker.client), await quotedRfq(taker, maker.client)];
      const won = await quotedRfq(taker, maker.client);
      await taker.accept(won.rfqId, { quoteId: won.quoteId });
      const btcRfq = await taker.createRfq({ instrumentId: 'BTC-USDC-SPOT', side: 'BUY', baseQty: '0.1', quoteLimit: '10000', autoAccept: false, windowMs: 60_000 });
      const btc = await maker.client.submitQuote({ rfqId: btcRfq.rfqId, instrumentId: 'BTC-USDC-SPOT', side: 'BUY', makerPays: { token: 'BTC', amount: '0.1' }, makerReceives: { token: 'USDC', amount: '6000' } });
      const others = await quotedRfq(taker, other.client);

      await rejects(maker.client.cancelAllQuotes('NOPE-USDC-SPOT'), 400, 'INSTRUMENT_NOT_FOUND');
      await rejects(taker.cancelAllQuotes(), 403, 'MAKER_SCOPE_REQUIRED');
      assert.deepEqual(await maker.client.cancelAllQuotes(INSTRUMENT), { cancelled: 2 });
      const told = new Set<unknown>();
      while (told.size < 2) told.add((await makerSocket.next((f) => f.kind === 'quoteStatus' && f.status === 'CANCELLED', 2000)).quoteId);
      assert.deepEqual([...told].sort(), eth.map((q) => q.quoteId).sort());
      let mine = await statuses(maker.client);
      assert.deepEqual([mine.get(won.quoteId), mine.get(btc.quoteId)], ['SELECTED', 'SUBMITTED']);

      assert.deepEqual(await maker.client.cancelAllQuotes(), { cancelled: 1 });
      mine = await statuses(maker.client);
      assert.equal(mine.get(btc.quoteId), 'CANCELLED');
      assert.deepEqual(await maker.client.cancelAllQuotes(), { cancelled: 0 });
      assert.equal((await statuses(other.client)).get(others.quoteId), 'SUBMITTED', "another maker's quote is untouched");
    });

    it('the dead man\'s switch refuses bad timeouts, is pushed back by each call, is disarmed by 0, and fires when not pushed back', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC']);
      const taker = await fundedTaker(ws.h);
      for (const timeoutMs of [999, 600_001, -1, 1500.5]) await rejects(maker.client.cancelAllAfter(timeoutMs), 400, 'INVALID_REQUEST');
      assert.deepEqual(await maker.client.cancelAllAfterState(), { firesAt: null });

      // Disarmed before it is due: past its deadline and a few sweeps, nothing was cancelled.
      const kept = await quotedRfq(taker, maker.client);
      const armed = await maker.client.cancelAllAfter(1_000);
      assert.ok(armed.firesAt !== null && Math.abs(armed.firesAt - (Date.now() + 1_000)) < 1_000, JSON.stringify(armed));
      assert.deepEqual(await maker.client.cancelAllAfterState(), armed);
      assert.deepEqual(await maker.client.cancelAllAfter(0), { firesAt: null });
      await pastSweep(ws.h, armed.firesAt, 'the disarmed cancel-all would fire');
      assert.equal((await statuses(maker.client)).get(kept.quoteId), 'SUBMITTED');

      // Pushed back: not fired at the first deadline, fired at the second.
      const first = await maker.client.cancelAllAfter(1_000);
      const pushed = await maker.client.cancelAllAfter(3_000);
      assert.ok(pushed.firesAt! > first.firesAt!);
      await pastSweep(ws.h, first.firesAt!, 'the pushed-back cancel-all would fire at its first deadline');
      assert.equal((await statuses(maker.client)).get(kept.quoteId), 'SUBMITTED', 'pushed back, so not fired at the first deadline');
      const late = await quotedRfq(taker, maker.client);
      const fired = await eventually(() => statuses(maker.client), (s) => s.get(kept.quoteId) === 'CANCELLED' && s.get(late.quoteId) === 'CANCELLED', 5_000);
      assert.deepEqual([fired.get(kept.quoteId), fired.get(late.quoteId)], ['CANCELLED', 'CANCELLED']);
      assert.ok(Date.now() >= pushed.firesAt!, 'not before its deadline');
      assert.deepEqual(await maker.client.cancelAllAfterState(), { firesAt: null }, 'a fired switch is disarmed');

      // After firing the maker quotes again; nothing is armed, so nothing more is cancelled.
      const after = await quotedRfq(taker, maker.client);
      await pastSweep(ws.h, Date.now(), 'a cancel-all would fire with nothing armed');
      assert.equal((await statuses(maker.client)).get(after.quoteId), 'SUBMITTED');
    });

    it('frozenMs re-arms a tripped protection by itself; without it the trip stays until the reset', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC', 'BTC-USDC']);
      const taker = await fundedTaker(ws.h);
      await rejects(maker.client.putProtection({ instrumentId: INSTRUMENT, windowMs: 60_000, maxSelectedQuotes: 1, frozenMs: -1 }), 400, 'INVALID_REQUEST');
      const set = await maker.client.putProtection({ instrumentId: INSTRUMENT, windowMs: 60_000, maxSelectedQuotes: 1, frozenMs: 1_000 });
      assert.equal(set.frozenMs, 1_000);
      await maker.client.putProtection({ instrumentId: 'BTC-USDC-SPOT', windowMs: 60_000, maxSelectedQuotes: 1, frozenMs: 0 });
      const won = await quotedRfq(taker, maker.client);
      await taker.accept(won.rfqId, { quoteId: won.quoteId });
      const tripped = (await maker.client.protection()).items.find((p) => p.instrumentId === INSTRUMENT)!;
      assert.equal(tripped.reason, 'maxSelectedQuotes');
      const rfq = await taker.createRfq({ instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', quoteLimit: '5000', autoAccept: false, windowMs: 60_000 });
      const quote = { rfqId: rfq.rfqId, instrumentId: INSTRUMENT, side: 'BUY' as const, makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '3000' } };
      await rejects(maker.client.submitQuote(quote), 409, 'MAKER_PROTECTION_TRIGGERED');

      const rearmed = await eventually(async () => (await maker.client.protection()).items.find((p) => p.instrumentId === INSTRUMENT)!, (p) => p.triggeredAt === null, 5_000);
      assert.deepEqual([rearmed.triggeredAt, rearmed.reason, rearmed.frozenMs], [null, null, 1_000]);
      assert.ok(Date.now() >= tripped.triggeredAt! + 1_000, 'not before frozenMs');
      assert.equal((await maker.client.submitQuote(quote)).status, 'SUBMITTED', 'quotes again, its window started afresh');

      // frozenMs 0 keeps the manual reset: a trip on BTC is still tripped sweeps after a second.
      const btcRfq = await taker.createRfq({ instrumentId: 'BTC-USDC-SPOT', side: 'BUY', baseQty: '0.1', quoteLimit: '10000', autoAccept: false, windowMs: 60_000 });
      const btc = await maker.client.submitQuote({ rfqId: btcRfq.rfqId, instrumentId: 'BTC-USDC-SPOT', side: 'BUY', makerPays: { token: 'BTC', amount: '0.1' }, makerReceives: { token: 'USDC', amount: '6000' } });
      await taker.accept(btcRfq.rfqId, { quoteId: btc.quoteId });
      const btcTrip = (await maker.client.protection()).items.find((p) => p.instrumentId === 'BTC-USDC-SPOT')!;
      assert.deepEqual([btcTrip.reason, btcTrip.frozenMs], ['maxSelectedQuotes', null]);
      await pastSweep(ws.h, btcTrip.triggeredAt! + 1_000, 'the unfrozen trip would clear by itself');
      assert.notEqual((await maker.client.protection()).items.find((p) => p.instrumentId === 'BTC-USDC-SPOT')!.triggeredAt, null);
    });
  });
}

describe('the dead man\'s switch across nodes [postgres]', { skip: !backends().includes('postgres') && 'needs TEST_DATABASE_URL' }, () => {
  let database: TestDatabase;
  let a: Harness;
  let b: Harness | null = null;
  let child: SpawnedNode | null = null;
  const secretKey = generateSecretKey();
  before(async () => {
    database = await createTestDatabase('postgres');
    a = await startHarness('postgres', { database, secretKey });
    b = await startHarness('postgres', { database, secretKey, seed: false });
  });
  after(async () => {
    await child?.kill();
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  /** The same credential against another node. */
  const on = (url: string, client: RfqClient) => new RfqClient(url, client.credentials);

  it('armed through a node that is then stopped, it fires on time from the other node', async () => {
    const maker = await a.newMaker(['ETH-USDC']);
    const taker = await fundedTaker(a);
    const open = await quotedRfq(taker, maker.client);
    const { firesAt } = await on(b!.url, maker.client).cancelAllAfter(1_000);
    await b!.close();
    b = null;
    assert.equal(await quoteStatusWithin(maker.client, open.quoteId, 'CANCELLED', 4_000), 'CANCELLED');
    assert.ok(Date.now() >= firesAt!, 'not before its deadline');
  });

  it('armed through a node that is then SIGKILLed, it fires on time from the survivor', async () => {
    child = await spawnNode({ store: database.location, adminToken: ADMIN_TOKEN, secretKey, port: 0, logLevel: 'fatal', rateLimit: { perKeyPerSec: 100_000, perSourcePerSec: 100_000 } });
    const maker = await a.newMaker(['ETH-USDC']);
    const taker = await fundedTaker(a);
    const open = await quotedRfq(taker, maker.client);
    const { firesAt } = await on(child.url, maker.client).cancelAllAfter(1_500);
    await child.kill();
    child = null;
    assert.equal(await quoteStatusWithin(maker.client, open.quoteId, 'CANCELLED', 5_000), 'CANCELLED');
    const late = Date.now() - firesAt!;
    assert.ok(late >= 0 && late < 3_000, `fired ${late} ms after its deadline`);
  });
});
