/**
 * Crash safety of a `/v0` withdrawal: the service runs as its own OS process on PostgreSQL, signs
 * and stores the omnibus's `spotSend`, and is SIGKILLed while that send is in flight and not yet
 * applied by the venue. Restarted on the same store, it resends the same stored bytes (same nonce),
 * the transfer is applied once, the withdrawal completes, and the invariants hold.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { ExchangeClient, HttpTransport } from '@nktkas/hyperliquid';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage, generateSiweNonce } from 'viem/siwe';
import { AdminClient } from '../../../src/client/admin-client.ts';
import { generateSecretKey } from '../../../src/runtime/node.ts';
import { openStore, type Store } from '../../../src/store/database.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { ADMIN_TOKEN, seedReferenceData } from '../../helpers/harness.ts';
import { STATEMENT, TOKEN_IDS, startSim, type VenueSim } from '../../helpers/v0.ts';
import { waitFor } from '../../helpers/eventually.ts';

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

async function until<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  return (await waitFor(probe, what, { timeoutMs, pollMs: 100 })) as T;
}

const skip = process.env.TEST_DATABASE_URL ? false : 'needs PostgreSQL (TEST_DATABASE_URL): a killed process must leave a store another process can open';

describe('/v0 withdrawal survives SIGKILL between signing and sending [postgres]', { skip, timeout: 300_000 }, () => {
  let sim: VenueSim;
  let database: TestDatabase;
  let store: Store;
  let child: ChildProcess | null = null;
  let url = '';
  const port = freePort();
  const secretKey = generateSecretKey();
  const omnibusKey = generatePrivateKey();
  const agentKey = generatePrivateKey();
  const omnibus = privateKeyToAccount(omnibusKey);

  const simPost = async (p: string, body: unknown) => {
    const response = await fetch(`${sim.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return response.json() as Promise<any>;
  };

  async function startService(): Promise<void> {
    const options = {
      store: database.location,
      adminToken: ADMIN_TOKEN,
      secretKey,
      port: await port,
      rateLimit: { perKeyPerSec: 100_000, perSourcePerSec: 100_000 },
      logLevel: 'fatal',
      v0: { venue: { url: sim.url, omnibusKey, agentKey, network: 'mainnet', pollIntervalMs: 100 } },
    };
    const proc = spawn(NODE_BIN, [LAUNCHER], { env: { ...process.env, RFQ_TEST_NODE_OPTIONS: JSON.stringify(options) }, stdio: ['ignore', 'pipe', 'inherit'] });
    child = proc;
    const ready = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: proc.stdout! });
      lines.on('line', (l) => {
        if (l.startsWith('RFQ_NODE_READY ')) resolve(l.slice('RFQ_NODE_READY '.length));
      });
      proc.once('exit', (code) => reject(new Error(`node exited with ${code}`)));
    });
    url = (JSON.parse(ready) as { url: string }).url;
  }

  async function kill(): Promise<void> {
    const proc = child;
    if (!proc) return;
    child = null;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  }

  async function call(operation: string, fields: Record<string, unknown>, token?: string) {
    const response = await fetch(`${url}/v0`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify({ operation, ...fields }) });
    return (await response.json()) as any;
  }

  before(async () => {
    sim = await startSim();
    await simPost('/_sim/fund', { user: omnibus.address, account: 'spot', token: 'USDC', amount: '1' });
    const transport = new HttpTransport({ apiUrl: sim.url, timeout: 10_000 });
    await new ExchangeClient({ transport, wallet: omnibus }).approveAgent({ agentAddress: privateKeyToAccount(agentKey).address, agentName: 'rfq-v0' });
    database = await createTestDatabase('postgres');
    await startService();
    await seedReferenceData(new AdminClient(url, ADMIN_TOKEN));
    store = await openStore(database.location);
  });

  after(async () => {
    await kill();
    await store?.close();
    await database?.drop();
    await sim?.stop();
  });

  it('resends the stored spotSend after the restart; the transfer happens once and the withdrawal completes', async () => {
    const user = privateKeyToAccount(generatePrivateKey());
    await simPost('/_sim/fund', { user: user.address, account: 'spot', token: 'USDC', amount: '50' });
    await new ExchangeClient({ transport: new HttpTransport({ apiUrl: sim.url }), wallet: user }).spotSend({ destination: omnibus.address, token: `USDC:${TOKEN_IDS.USDC}`, amount: '50' });
    const message = createSiweMessage({ domain: 'localhost', address: user.address, statement: STATEMENT, uri: 'http://localhost/v0', version: '1', chainId: 31337, nonce: generateSiweNonce(), issuedAt: new Date() });
    const { token } = await call('login', { message, signature: await user.signMessage({ message }) });
    await until(async () => (await call('getBalances', {}, token)).balances?.length === 1, 'deposit credited');

    // The venue holds the first send without applying it; the node is killed while it waits.
    await simPost('/_sim/faults', { match: { endpoint: 'exchange', action: 'spotSend', user: omnibus.address }, effect: { type: 'timeoutBeforeApply', holdMs: 60_000 }, count: 1 });
    const { withdrawalId } = await call('initiateWithdrawal', { tokenSymbol: 'USDC', amount: '20' }, token);
    const stored = await until(async () => store.db.selectFrom('venue_actions').selectAll().where('owner_id', '=', withdrawalId).where('status', '=', 'SENT').executeTakeFirst(), 'spotSend signed, stored and sent');
    await kill();
    const atVenue = async () => {
      const state = (await (await fetch(`${sim.url}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'spotClearinghouseState', user: user.address }) })).json()) as { balances: Array<{ coin: string; total: string }> };
      return state.balances.find((b) => b.coin === 'USDC')?.total ?? '0';
    };
    assert.equal(Number(await atVenue()), 0, 'nothing applied before the restart');

    await startService();
    const done = await until(async () => {
      const r = await call('getWithdrawalStatus', { withdrawalId }, token);
      return r.withdrawal?.state === 'completed' ? r.withdrawal : null;
    }, 'withdrawal completed after the restart', 30_000);
    assert.match(done.txHash, /^0x/);
    assert.equal(Number(await atVenue()), 20, 'the transfer happened exactly once');
    const actions = await store.db.selectFrom('venue_actions').selectAll().where('owner_id', '=', withdrawalId).execute();
    assert.equal(actions.length, 1, 'one signed action: the resend reused it');
    assert.equal(actions[0]!.nonce, stored.nonce);
    assert.deepEqual(actions[0]!.request, stored.request, 'same bytes');
    assert.ok(actions[0]!.send_attempts >= 2);
    const ledger = (await (await fetch(`${sim.url}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'userNonFundingLedgerUpdates', user: omnibus.address, startTime: 0 }) })).json()) as Array<{ hash: string; delta: { type: string; destination?: string; nonce?: number } }>;
    const out = ledger.filter((u) => u.delta.type === 'spotTransfer' && u.delta.destination === user.address.toLowerCase());
    assert.equal(out.length, 1);
    assert.equal(out[0]!.delta.nonce, stored.nonce);
    // The restarted follower reread the omnibus's ledger from the start: the deposit is still credited once.
    const deposits = await store.db.selectFrom('venue_deposits').selectAll().where('from_address', '=', user.address).execute();
    assert.equal(deposits.length, 1);
    const balances = await call('getBalances', {}, token);
    assert.deepEqual([balances.balances[0].available, balances.balances[0].locked], ['30000000', '0']);
    const invariants = (await (await fetch(`${url}/admin/v1/invariants`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { ok: boolean; violations: unknown[] };
    assert.deepEqual(invariants.violations, []);
  });
});
