/**
 * Crash safety of perp execution: the service runs as its own OS process on PostgreSQL and is
 * SIGKILLed after it committed "taker order sending" while the order is at the venue (the
 * simulator applies it and holds the reply). Restarted on the same store, the service resolves
 * the order by its cloid (SETTLED) and never sends it again: the venue saw one taker order.
 * A perp sweep killed between its legs (the second leg's maker order applied, its reply held)
 * resumes with that leg looked up by cloid, never sent twice, and settles both legs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { signL1Action } from '@nktkas/hyperliquid/signing';
import { privateKeyToAccount, generatePrivateKey, type PrivateKeyAccount } from 'viem/accounts';
import { startVenueSim, type VenueSim } from '../../../sim/venue/index.ts';
import { VenueSimControl } from '../../../sim/venue/control.ts';
import { AdminClient } from '../../../src/client/admin-client.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import { generateSecretKey } from '../../../src/runtime/node.ts';
import { openStore, type Store } from '../../../src/store/database.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { ADMIN_TOKEN, seedReferenceData } from '../../helpers/harness.ts';
import { eventually, waitFor } from '../../helpers/eventually.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const NODE_BIN = path.join(ROOT, 'node_modules/.bin/node');
const LAUNCHER = path.join(ROOT, 'test/helpers/node-process.ts');
const BUILDER = '0x00000000000000000000000000000000000000b1';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let lastNonce = 0;
const freshNonce = () => (lastNonce = Math.max(Date.now(), lastNonce + 1));
async function sign(account: PrivateKeyAccount, action: Record<string, unknown>, nonce = freshNonce()) {
  return { action, nonce, signature: await signL1Action({ wallet: account, action, nonce, isTestnet: false }) };
}
const cloid = () => `0x${randomBytes(16).toString('hex')}`;

const skip = process.env.TEST_DATABASE_URL ? false : 'needs PostgreSQL (TEST_DATABASE_URL): a killed process must leave a store another process can open';

describe('perp execution survives SIGKILL between recording and answering the taker order [postgres]', { skip }, () => {
  let sim: VenueSim;
  let control: VenueSimControl;
  let database: TestDatabase;
  let store: Store;
  let child: ChildProcess | null = null;
  let url: string;
  const port = freePort();
  const secretKey = generateSecretKey();

  async function startService(): Promise<void> {
    const options = {
      store: database.location,
      adminToken: ADMIN_TOKEN,
      secretKey,
      port: await port,
      venue: { url: sim.url, network: 'mainnet', builderAddress: BUILDER },
      perpExecution: { resolveWindowMs: 5_000, resolvePollMs: 100, leaseMs: 1_500 },
      rateLimit: { perKeyPerSec: 100_000, perSourcePerSec: 100_000 },
      logLevel: 'fatal',
    };
    const proc = spawn(NODE_BIN, [LAUNCHER], { env: { ...process.env, RFQ_TEST_NODE_OPTIONS: JSON.stringify(options) }, stdio: ['ignore', 'pipe', 'inherit'] });
    child = proc;
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: proc.stdout! }).on('line', (l) => {
        if (l.startsWith('RFQ_NODE_READY ')) resolve(l.slice('RFQ_NODE_READY '.length));
      });
      proc.once('exit', (code) => reject(new Error(`service exited with ${code} before listening`)));
    });
    url = (JSON.parse(line) as { url: string }).url;
  }

  async function kill(): Promise<void> {
    const proc = child!;
    child = null;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  }

  before(async () => {
    sim = await startVenueSim({ port: 0 });
    control = new VenueSimControl(sim.url);
    database = await createTestDatabase('postgres');
    await startService();
    await seedReferenceData(new AdminClient(url, ADMIN_TOKEN));
    store = await openStore(database.location);
  });
  after(async () => {
    if (child) await kill();
    await store?.close();
    await database?.drop();
    await sim?.stop();
  });

  it('resolves the order by cloid after the restart and never resends it', async () => {
    const admin = new AdminClient(url, ADMIN_TOKEN);
    await admin.putInstrument('ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 0, minQuoteNotional: '10' });
    const makerAccount = privateKeyToAccount(generatePrivateKey());
    const takerAccount = privateKeyToAccount(generatePrivateKey());
    for (const user of [makerAccount, takerAccount]) await control.fund({ user: user.address, account: 'perp', token: 'USDC', amount: '100000' });
    await admin.putMaker(makerAccount.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['perp'] });
    const maker = new RfqClient(url);
    await maker.signIn(makerAccount);
    const taker = new RfqClient(url);
    await taker.signIn(takerAccount);

    const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-PERP', side: 'BUY', baseQty: '0.1', quoteLimit: '400', windowMs: 60_000 });
    const mc = cloid();
    const order = await sign(makerAccount, { type: 'order', orders: [{ a: 1, b: false, p: '3500.1', s: '0.1', r: false, t: { limit: { tif: 'Alo' } }, c: mc }], grouping: 'na' });
    const cancel = await sign(makerAccount, { type: 'cancelByCloid', cancels: [{ asset: 1, cloid: mc }] }, Math.max(order.nonce + 1, freshNonce()));
    const quote = await maker.submitQuote({ rfqId, instrumentId: 'ETH-USDC-PERP', side: 'BUY', makerPays: { token: 'ETH', amount: '0.1' }, makerReceives: { token: 'USDC', amount: '350.01' }, perpMakerOrder: order, perpMakerCancel: cancel });
    const tc = cloid();
    const takerSigned = await sign(takerAccount, { type: 'order', orders: [{ a: 1, b: true, p: '3500.1', s: '0.1', r: false, t: { limit: { tif: 'Ioc' } }, c: tc }], grouping: 'na' });
    // The venue applies the taker's order and holds the reply: the service is killed while waiting.
    const held = await control.addFault({ match: { action: 'order', cloid: tc }, effect: { type: 'timeoutAfterApply', holdMs: 60_000 }, count: 1 });
    await taker.accept(rfqId, { quoteId: quote.quoteId, perpTakerOrder: takerSigned });
    const sending = await eventually(
      () => store.db.selectFrom('perp_executions').select(['phase', 'taker_sent_at']).where('rfq_id', '=', rfqId).executeTakeFirst(),
      (e) => e?.phase === 'takerSending',
    );
    assert.equal(sending?.phase, 'takerSending');
    // Kill once the request has reached the venue: it takes the fault and applies the order in one
    // step, so the fault gone from its list means the order is applied and the reply held.
    await waitFor(async () => !(await control.faults()).some((rule) => rule.id === held.id), 'the venue applies the taker order and holds its reply', { timeoutMs: 10_000 });
    await kill();

    await startService();
    const rfq = await eventually(() => taker.getRfq(rfqId), (r) => r.status !== 'PENDING' && r.status !== 'QUOTED', 30_000);
    assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
    const calls = await store.db.selectFrom('perp_execution_calls').innerJoin('perp_executions', 'perp_executions.id', 'perp_execution_calls.execution_id').select('kind').where('perp_executions.rfq_id', '=', rfqId).execute();
    assert.equal(calls.filter((c) => c.kind === 'takerOrder').length, 0, 'the restarted node did not send the taker order again');
    assert.ok(calls.some((c) => c.kind === 'orderStatus'), 'resolved by cloid');
    const fills = (await (await fetch(`${sim.url}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'userFills', user: takerAccount.address.toLowerCase() }) })).json()) as { cloid?: string }[];
    assert.equal(fills.filter((f) => f.cloid === tc).length, 1, 'the venue filled the taker order once');
  });

  it('a perp sweep killed between its legs looks the second maker order up after the restart, sends it once, and settles both legs', async () => {
    const admin = new AdminClient(url, ADMIN_TOKEN);
    await admin.putInstrument('ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 0, minQuoteNotional: '10' });
    const makers = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];
    const takerAccount = privateKeyToAccount(generatePrivateKey());
    for (const user of [...makers, takerAccount]) await control.fund({ user: user.address, account: 'perp', token: 'USDC', amount: '100000' });
    const taker = new RfqClient(url);
    await taker.signIn(takerAccount);
    const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-PERP', side: 'BUY', baseQty: '0.2', quoteLimit: '800', windowMs: 60_000, fill: 'SWEEP' });
    const cloids: string[] = [];
    const quoteIds: string[] = [];
    for (const [i, account] of makers.entries()) {
      await admin.putMaker(account.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['perp'] });
      const maker = new RfqClient(url);
      await maker.signIn(account);
      const c = cloid();
      cloids.push(c);
      const p = i === 0 ? '3500.1' : '3500.2';
      const order = await sign(account, { type: 'order', orders: [{ a: 1, b: false, p, s: '0.1', r: false, t: { limit: { tif: 'Alo' } }, c }], grouping: 'na' });
      const cancel = await sign(account, { type: 'cancelByCloid', cancels: [{ asset: 1, cloid: c }] }, Math.max(order.nonce + 1, freshNonce()));
      const quote = await maker.submitQuote({ rfqId, instrumentId: 'ETH-USDC-PERP', side: 'BUY', makerPays: { token: 'ETH', amount: '0.1' }, makerReceives: { token: 'USDC', amount: i === 0 ? '350.01' : '350.02' }, perpMakerOrder: order, perpMakerCancel: cancel });
      quoteIds.push(quote.quoteId);
    }
    const tc = cloid();
    const takerSigned = await sign(takerAccount, { type: 'order', orders: [{ a: 1, b: true, p: '3500.2', s: '0.2', r: false, t: { limit: { tif: 'Ioc' } }, c: tc }], grouping: 'na' });
    // The venue applies the second leg's maker order and holds the reply: the service is killed while waiting.
    const held = await control.addFault({ match: { action: 'order', cloid: cloids[1]! }, effect: { type: 'timeoutAfterApply', holdMs: 60_000 }, count: 1 });
    await taker.acceptSweep(rfqId, { quotes: quoteIds.map((quoteId) => ({ quoteId, expectedVersion: 1 })), perpTakerOrder: takerSigned } as never);
    await waitFor(async () => !(await control.faults()).some((rule) => rule.id === held.id), 'the venue applies the second maker order and holds its reply', { timeoutMs: 10_000 });
    await kill();

    await startService();
    const rfq = await eventually(() => taker.getRfq(rfqId), (r) => r.status !== 'PENDING' && r.status !== 'QUOTED', 30_000);
    assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
    assert.deepEqual((rfq as { fills?: { status: string }[] }).fills?.map((f) => f.status), ['SETTLED', 'SETTLED']);
    const calls = await store.db.selectFrom('perp_execution_calls').innerJoin('perp_executions', 'perp_executions.id', 'perp_execution_calls.execution_id').select(['perp_execution_calls.kind as kind', 'perp_execution_calls.quote_id as quote_id']).where('perp_executions.rfq_id', '=', rfqId).execute();
    assert.equal(calls.filter((c) => c.kind === 'makerOrder' && c.quote_id === quoteIds[1]).length, 0, 'the second maker order was not sent again');
    assert.ok(calls.some((c) => c.kind === 'orderStatus'), 'looked up by cloid');
    const fills = (await (await fetch(`${sim.url}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'userFills', user: makers[1]!.address.toLowerCase() }) })).json()) as { cloid?: string }[];
    assert.equal(fills.filter((f) => f.cloid === cloids[1]).length, 1, 'the second maker order was placed once and filled');
  });
});
