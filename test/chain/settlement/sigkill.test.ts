/**
 * Crash safety of permit2 settlement: the service runs as its own OS process on PostgreSQL and
 * is SIGKILLed (1) after the accept, before the maker relays, and (2) after its chain follower has
 * read the RfqSettled log but before its step transaction commits (the test holds the cursor row
 * so the step blocks exactly there). Restarted on the same store, it settles each trade exactly
 * once, and the ledger invariants hold.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { sql } from 'kysely';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { AdminClient } from '../../../src/client/admin-client.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import { generateSecretKey } from '../../../src/runtime/node.ts';
import { openStore, type Store } from '../../../src/store/database.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { ADMIN_TOKEN, seedReferenceData } from '../../helpers/harness.ts';
import { startTestChain, type TestChain } from '../../helpers/chain.ts';
import { balanceOf, chainMaker, fundedTaker, relay, rfqReaches, until, winningQuote, type ChainMaker } from '../../helpers/settlement.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const NODE_BIN = path.join(ROOT, 'node_modules/.bin/node');
const LAUNCHER = path.join(ROOT, 'test/helpers/node-process.ts');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const skip = process.env.TEST_DATABASE_URL ? false : 'needs PostgreSQL (TEST_DATABASE_URL): a killed process must leave a store another process can open';

describe('permit2 settlement survives SIGKILL [postgres]', { skip }, () => {
  let chain: TestChain;
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
      chain: chain.stack.settings,
      rateLimit: { perKeyPerSec: 100_000, perSourcePerSec: 100_000 },
      logLevel: process.env.SIGKILL_LOG ?? 'fatal',
    };
    const proc = spawn(NODE_BIN, [LAUNCHER], { env: { ...process.env, RFQ_TEST_NODE_OPTIONS: JSON.stringify(options) }, stdio: ['ignore', 'pipe', 'inherit'] });
    child = proc;
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: proc.stdout! }).on('line', (l) => {
        if (l.startsWith('RFQ_NODE_READY ')) resolve(l.slice('RFQ_NODE_READY '.length));
        else process.stderr.write(`${l}\n`);
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

  // What the harness offers, against the child process.
  const harness = () => {
    const admin = new AdminClient(url, ADMIN_TOKEN);
    return {
      url,
      admin,
      async newUser() {
        const account = privateKeyToAccount(generatePrivateKey());
        const client = new RfqClient(url);
        await client.signIn(account);
        return { client, account };
      },
      async fund(address: string, amounts: Record<string, string>) {
        for (const [token, amount] of Object.entries(amounts)) await admin.adjustBalance({ address, token, amount, memo: 'test funding' });
      },
    };
  };

  before(async () => {
    chain = await startTestChain();
    database = await createTestDatabase('postgres');
    await startService();
    await seedReferenceData(new AdminClient(url, ADMIN_TOKEN), chain.tokenAddresses);
    store = await openStore(database.location);
  });
  after(async () => {
    if (child) await kill();
    await store?.close();
    await database?.drop();
    await chain?.stop();
  });

  async function acceptedBuy(maker: ChainMaker) {
    const taker = await fundedTaker(harness(), chain, { USDC: '10000' });
    const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 10_000 });
    const { quoteId } = await maker.client.submitQuote({
      rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: '4300' },
    });
    await taker.client.accept(rfqId, { quoteId });
    return { taker, rfqId, q: await winningQuote(maker, quoteId) };
  }

  async function settledExactlyOnce(taker: Awaited<ReturnType<typeof acceptedBuy>>['taker'], rfqId: string, txHash: string) {
    const rfq = await rfqReaches(taker.client, rfqId, 'SETTLED', 30_000);
    assert.deepEqual([rfq.txHash, rfq.executedPayAmount, rfq.executedRecvAmount, rfq.takerFee], [txHash, '4310.75', '1.5', '10.75']);
    const { balances } = await taker.client.balances();
    assert.deepEqual(balanceOf(balances, 'USDC'), { available: '5689.25', locked: '0' });
    assert.deepEqual(balanceOf(balances, 'ETH'), { available: '1.5', locked: '0' });
    const { entries } = await taker.client.ledger();
    assert.deepEqual(entries.map((e) => `${e.source} ${e.token} ${e.delta}`).sort(), ['ADJUSTMENT USDC 10000', 'FEE USDC -10.75', 'SETTLEMENT ETH 1.5', 'SETTLEMENT USDC -4300']);
    const movements = await sql<{ n: number }>`select count(*)::int as n from ledger_movements where reference = ${rfqId}`.execute(store.db);
    assert.equal(movements.rows[0]!.n, 1);
    const invariants = await harness().admin.invariants();
    assert.deepEqual(invariants.violations, []);
  }

  it('killed after the accept, before the maker relays: settles exactly once after the restart', async () => {
    const maker = await chainMaker(harness(), chain);
    const { taker, rfqId, q } = await acceptedBuy(maker);
    await kill();
    const receipt = await relay(chain, maker, q);
    assert.equal(receipt.status, 'success');
    await startService();
    await settledExactlyOnce(taker, rfqId, receipt.transactionHash);
  });

  it('killed between reading the RfqSettled log and committing its step: settles exactly once after the restart', async () => {
    const maker = await chainMaker(harness(), chain);
    const { taker, rfqId, q } = await acceptedBuy(maker);
    const location = database.location as { url: string };
    const holder = new pg.Client({ connectionString: location.url });
    await holder.connect();
    try {
      // Hold the RFQ's row: the follower's next step reads the RfqSettled log, opens its transaction,
      // takes the cursor and blocks in the settlement itself, waiting for this row.
      await holder.query('begin');
      await holder.query('select * from rfqs where id = $1 for update', [rfqId]);
      const holderPid = (await holder.query('select pg_backend_pid() as pid')).rows[0].pid as number;
      const receipt = await relay(chain, maker, q);
      await until(
        async () => (await holder.query('select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [holderPid])).rows[0].n as number,
        (n) => n > 0,
      );
      const cursorRow = await holder.query('select block_number from chain_cursors where name = \'main\'');
      assert.ok(Number(cursorRow.rows[0].block_number) < Number(receipt.blockNumber), 'the step holding the settlement has not committed');
      // The step has the log and is mid-transaction: kill it there.
      await kill();
      await holder.query('rollback');
      assert.equal((await taker.client.getRfq(rfqId).catch(() => null)), null, 'the service is down');
      const status = await sql<{ status: string }>`select status from rfqs where id = ${rfqId}`.execute(store.db);
      assert.equal(status.rows[0]!.status, 'QUOTED', 'nothing was committed');
      await startService();
      await settledExactlyOnce(taker, rfqId, receipt.transactionHash);
    } finally {
      await holder.end();
    }
  });
});
