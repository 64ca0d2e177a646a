/**
 * `npm start` end to end, as a newcomer runs it: a fresh data directory, the ready banner, the
 * printed demo taker credential used with the taker CLI to buy and sell on both spot pairs
 * against the demo makers, each RFQ SETTLED on-chain with the balances it implies and the ledger
 * invariants holding; then SIGTERM, and a second start on the same directory resumes (same admin
 * token, same credential, the taker's balances intact). Times are printed, never asserted.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { RfqClient } from '../../src/client/rfq-client.ts';
import { AdminClient } from '../../src/client/admin-client.ts';
import type { Balance, Rfq } from '../../src/client/types.ts';
import { parseAmount } from '../../src/domain/money/index.ts';
import { parseUnits } from '../../sim/venue/decimal.ts';
import { privateKeyToAccount } from 'viem/accounts';
import { cleanEnv, freePort, NODE, processesUsing, rpcAnswers, startEmbedded, type Started } from '../helpers/embedded-node.ts';

const DECIMALS: Record<string, number> = { USDC: 6, ETH: 18, BTC: 8 };

const children = new Set<ChildProcess>();
let dataDir = '';

after(async () => {
  for (const child of children) child.kill('SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const start = (port: number) => startEmbedded(dataDir, port, children);

async function stop(started: Started): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  started.child.kill('SIGTERM');
  return exited;
}

/** Runs the taker CLI; resolves with its exit status and stdout. */
function cli(args: string[], credentials: string, env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE, ['src/runtime/rfq-cli.ts', '--credentials', credentials, ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Entries under `dir` (itself included) that its group or other users may read, write or enter. */
async function openToOthers(dir: string): Promise<string[]> {
  const open: string[] = [];
  if (((await stat(dir)).mode & 0o077) !== 0) open.push(dir);
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const mode = (await stat(full)).mode;
    if ((mode & 0o077) !== 0) open.push(`${path.relative(dir, full)} ${(mode & 0o777).toString(8)}`);
  }
  return open;
}

const units = (token: string, amount: string) => parseAmount(amount, DECIMALS[token]!, { field: token });

function totals(balances: Balance[]): Record<string, bigint> {
  const out: Record<string, bigint> = {};
  for (const b of balances) {
    assert.equal(b.locked, '0', `nothing stays locked once every RFQ is terminal (${b.token})`);
    out[b.token] = (out[b.token] ?? 0n) + units(b.token, b.total);
  }
  return out;
}

async function venueInfo(url: string, body: Record<string, unknown>): Promise<any> {
  const response = await fetch(`${url}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(2000) });
  assert.equal(response.status, 200, `venue ${body.type}`);
  return response.json();
}

/** A signed venue decimal (a short position's `szi` is negative) in the simulator's units. */
function parseSigned(text: string): bigint {
  const value = parseUnits(text, { signed: true });
  assert.ok(value !== null, `a decimal: ${text}`);
  return value;
}

type VenuePosition = { coin: string; szi: string; entryPx: string };

/** The account's perp positions at the venue, by coin. */
async function venuePositions(url: string, user: string): Promise<VenuePosition[]> {
  const state = (await venueInfo(url, { type: 'clearinghouseState', user })) as { assetPositions: Array<{ position: VenuePosition }> };
  return state.assetPositions.map(({ position: { coin, szi, entryPx } }) => ({ coin, szi, entryPx })).sort((a, b) => a.coin.localeCompare(b.coin));
}

/** Runs the `/v0` CLI as the banner's `/v0:` line shows (the demo taker's key from the data directory). */
function v0Cli(url: string, args: string[]): Promise<{ status: number | null; json: any; stderr: string }> {
  return new Promise((resolve, reject) => {
    readFile(path.join(dataDir, 'demo-taker-key'), 'utf8').then((key) => {
      const child = spawn(NODE, ['src/runtime/v0-cli.ts', ...args], { env: cleanEnv({ RFQ_URL: url, RFQ_V0_KEY: key.trim() }), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('exit', (status) => resolve({ status, json: stdout.trim() === '' ? null : JSON.parse(stdout), stderr }));
    }, reject);
  });
}

describe('npm start: a living venue', { timeout: 8 * 60_000 }, () => {
  it('trades on both spot pairs, a three-maker sweep, both perps and a three-maker perp sweep against the demo makers, settles, stops cleanly and resumes', async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'rfq-embedded-start-'));
    const credentials = path.join(dataDir, 'cli-credential.json');
    const port = await freePort();

    const first = await start(port);
    process.stdout.write(`# spawn to ready: ${(first.readyMs / 1000).toFixed(1)} s\n`);
    assert.match(first.output(), /• demo-maker-1 0x[0-9a-fA-F]{40}/);
    assert.match(first.output(), /• demo-maker-2 0x[0-9a-fA-F]{40}/);
    assert.match(first.output(), /• demo-maker-3 0x[0-9a-fA-F]{40}/);
    assert.match(first.output(), /• demo taker 0x[0-9a-fA-F]{40}: deposited/);

    // The embedded venue simulator: answers meta, lists both perps, the demo taker is funded there
    // and has approved the builder fee.
    const meta = (await venueInfo(first.venueUrl, { type: 'meta' })) as { universe: Array<{ name: string }> };
    assert.ok(['ETH', 'BTC'].every((coin) => meta.universe.some((u) => u.name === coin)), JSON.stringify(meta));
    // `/v0`: the omnibus's API wallet (both keys generated into the data directory) is approved at the simulator.
    const omnibus = privateKeyToAccount((await readFile(path.join(dataDir, 'venue-omnibus-key'), 'utf8')).trim() as `0x${string}`).address;
    const agent = privateKeyToAccount((await readFile(path.join(dataDir, 'venue-agent-key'), 'utf8')).trim() as `0x${string}`).address;
    const agents = (await venueInfo(first.venueUrl, { type: 'extraAgents', user: omnibus })) as Array<{ address: string }>;
    assert.deepEqual(agents.map((a) => a.address.toLowerCase()), [agent.toLowerCase()]);
    const venueReader = new RfqClient(first.url, { accessKey: first.accessKey, secret: first.secret });
    const listed = (await venueReader.instruments()).instruments;
    assert.deepEqual((await venueReader.network()).venue, { network: 'testnet', builderAddress: first.builderAddress, omnibusAddress: omnibus, url: first.venueUrl });
    for (const id of ['ETH-USDC-PERP', 'BTC-USDC-PERP']) assert.equal(listed.find((i) => i.instrumentId === id)?.type, 'PERP', `${id} listed`);
    const margin = (await venueInfo(first.venueUrl, { type: 'clearinghouseState', user: first.takerAddress })) as { marginSummary: { accountValue: string } };
    assert.equal(parseUnits(margin.marginSummary.accountValue), parseUnits('100000'));
    assert.ok(Number(await venueInfo(first.venueUrl, { type: 'maxBuilderFee', user: first.takerAddress, builder: first.builderAddress })) > 0, 'builder fee approved');

    const login = await cli(['--url', first.url, 'login', '--access-key', first.accessKey, '--secret', first.secret], credentials);
    assert.equal(login.status, 0, login.stderr);
    const taker = new RfqClient(first.url, { accessKey: first.accessKey, secret: first.secret });
    const admin = new AdminClient(first.url, first.adminToken);
    const before = totals((await taker.balances()).balances);

    const trades: Array<[side: 'buy' | 'sell', size: string, instrumentId: string]> = [
      ['buy', '0.5', 'ETH-USDC-SPOT'],
      ['sell', '0.75', 'ETH-USDC-SPOT'],
      ['buy', '0.02', 'BTC-USDC-SPOT'],
      ['sell', '0.03', 'BTC-USDC-SPOT'],
    ];
    const expected: Record<string, bigint> = { ...before };
    for (const [side, size, instrumentId] of trades) {
      const startedAt = performance.now();
      const run = await cli(['--json', side, size, instrumentId, '--window', '2s'], credentials);
      const result = JSON.parse(run.stdout) as { rfq: Rfq };
      const selectedToSettled = result.rfq.settledAt && result.rfq.quotedAt ? `, ${result.rfq.settledAt - result.rfq.quotedAt} ms from selection` : '';
      process.stdout.write(`# ${side} ${size} ${instrumentId}: RFQ to ${result.rfq.status} in ${((performance.now() - startedAt) / 1000).toFixed(1)} s (2 s auction${selectedToSettled})\n`);
      assert.equal(run.status, 0, `${side} ${instrumentId}: ${run.stderr}\n${run.stdout}`);
      const rfq = await taker.getRfq(result.rfq.id);
      assert.equal(rfq.status, 'SETTLED');
      assert.match(rfq.txHash ?? '', /^0x[0-9a-f]{64}$/);
      const [base, quote] = instrumentId.split('-') as [string, string];
      const [payToken, recvToken] = side === 'buy' ? [quote, base] : [base, quote];
      // The taker's all-in pay leg (fee included) and what it received, exactly as reported.
      expected[payToken] = expected[payToken]! - units(payToken, rfq.executedPayAmount!);
      expected[recvToken] = expected[recvToken]! + units(recvToken, rfq.executedRecvAmount!);
      if (side === 'buy') assert.equal(rfq.executedRecvAmount, size);
      else assert.equal(rfq.executedPayAmount, size);
    }
    // A sweep, as the taker quickstart shows it: each demo maker quotes at most 1-1.5 ETH of it, so
    // 3 ETH takes all three, each leg settled on-chain on its own.
    const sweep = await cli(['--json', 'buy', '3', 'ETH-USDC-SPOT', '--sweep', '--min', '1', '--window', '3s'], credentials);
    assert.equal(sweep.status, 0, `sweep: ${sweep.stderr}\n${sweep.stdout}`);
    const swept = await taker.getRfq((JSON.parse(sweep.stdout) as { rfq: Rfq }).rfq.id);
    assert.equal(swept.status, 'SETTLED', JSON.stringify(swept));
    assert.equal(swept.fills?.length, 3, JSON.stringify(swept.fills));
    assert.ok(swept.fills!.every((leg) => leg.status === 'SETTLED' && /^0x[0-9a-f]{64}$/.test(leg.txHash ?? '')), JSON.stringify(swept.fills));
    assert.equal(swept.executedRecvAmount, '3');
    assert.equal(swept.fills!.reduce((sum, leg) => sum + units('ETH', leg.baseQty), 0n), units('ETH', '3'));
    process.stdout.write(`# sweep buy 3 ETH-USDC-SPOT: legs ${swept.fills!.map((leg) => leg.baseQty).join(' + ')}\n`);
    expected['USDC'] = expected['USDC']! - units('USDC', swept.executedPayAmount!);
    expected['ETH'] = expected['ETH']! + units('ETH', swept.executedRecvAmount!);
    const afterTrades = totals((await taker.balances()).balances);
    assert.deepEqual(afterTrades, expected);

    // Perps, as the taker quickstart says: the CLI signs the IOC with the demo taker's key from the
    // data directory (logged in as the demo taker), the demo makers quote from the venue's book, and
    // the fill is read from the executed quote. No ledger entry: the taker trades from its venue account.
    const perpTrades: Array<[side: 'buy' | 'sell', size: string, instrumentId: string, coin: string]> = [
      ['buy', '0.1', 'ETH-USDC-PERP', 'ETH'],
      ['sell', '0.04', 'ETH-USDC-PERP', 'ETH'],
      ['buy', '0.003', 'BTC-USDC-PERP', 'BTC'],
      ['sell', '0.001', 'BTC-USDC-PERP', 'BTC'],
    ];
    const positionOf = async (coin: string) => parseSigned((await venuePositions(first.venueUrl, first.takerAddress)).find((p) => p.coin === coin)?.szi ?? '0');
    for (const [side, size, instrumentId, coin] of perpTrades) {
      const startedAt = performance.now();
      const held = await positionOf(coin);
      // A 5 s auction: a demo maker reads the venue's book before it quotes a perp, and on a loaded
      // machine its quote came 1.5 s into a 2 s auction, too late for the CLI to accept it.
      const run = await cli(['--json', side, size, instrumentId, '--window', '5s'], credentials, { RFQ_DATA_DIR: dataDir });
      assert.equal(run.status, 0, `${side} ${instrumentId}: ${run.stderr}\n${run.stdout}`);
      const result = JSON.parse(run.stdout) as { rfq: Rfq; perpFill: { quoteId: string; perpFilledSize: string; perpFillAvgPx: string } };
      process.stdout.write(`# ${side} ${size} ${instrumentId}: RFQ to ${result.rfq.status} in ${((performance.now() - startedAt) / 1000).toFixed(1)} s, filled ${result.perpFill?.perpFilledSize} at ${result.perpFill?.perpFillAvgPx}\n`);
      const rfq = await taker.getRfq(result.rfq.id);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.equal(rfq.txHash, undefined, 'a perp RFQ carries no txHash');
      assert.equal(result.perpFill.quoteId, rfq.selectedQuoteId);
      const executed = await taker.getQuote(rfq.selectedQuoteId!);
      assert.equal(executed.perpFilledSize, size, 'the demo maker\'s resting order filled the whole size');
      assert.equal(result.perpFill.perpFilledSize, size);
      assert.equal(result.perpFill.perpFillAvgPx, executed.perpFillAvgPx);
      assert.equal((await positionOf(coin)) - held, (side === 'buy' ? 1n : -1n) * parseSigned(size), `${coin} position moved by the fill`);
    }
    // A perp sweep, as the taker quickstart shows it: the demo makers quote 35-45 % of it each, so
    // 0.3 ETH takes all three; one maker order rests per leg and one IOC, signed over the selection, takes them.
    const ethHeld = await positionOf('ETH');
    const perpSweep = await cli(['--json', 'buy', '0.3', 'ETH-USDC-PERP', '--sweep', '--window', '5s'], credentials, { RFQ_DATA_DIR: dataDir });
    assert.equal(perpSweep.status, 0, `perp sweep: ${perpSweep.stderr}\n${perpSweep.stdout}`);
    const perpSwept = await taker.getRfq((JSON.parse(perpSweep.stdout) as { rfq: Rfq }).rfq.id);
    assert.equal(perpSwept.status, 'SETTLED', JSON.stringify(perpSwept));
    assert.equal(perpSwept.fills?.length, 3, JSON.stringify(perpSwept.fills));
    assert.ok(perpSwept.fills!.every((leg) => leg.status === 'SETTLED'), JSON.stringify(perpSwept.fills));
    assert.equal((await positionOf('ETH')) - ethHeld, parseSigned('0.3'), 'the ETH position moved by the sweep');
    process.stdout.write(`# sweep buy 0.3 ETH-USDC-PERP: legs ${perpSwept.fills!.map((leg) => leg.baseQty).join(' + ')}\n`);
    assert.deepEqual(totals((await taker.balances()).balances), expected, 'perps move nothing on the service\'s ledger');
    const positionsAtStop = await venuePositions(first.venueUrl, first.takerAddress);
    assert.deepEqual(positionsAtStop.map((p) => p.coin), ['BTC', 'ETH']);

    // `/v0` right after start: the demo taker's USDC sent to the omnibus is credited before the
    // banner, and an IOC buy placed with the CLI fills at the simulator's HYPE/USDC book.
    assert.match(first.output(), /• demo taker on \/v0: deposited, credited/);
    assert.match(first.output(), /\/v0: +RFQ_URL=\S+ RFQ_V0_KEY=\$\(cat \S+demo-taker-key\) npm run v0 -- getBalances/);
    const v0Balances = await v0Cli(first.url, ['getBalances']);
    assert.equal(v0Balances.status, 0, v0Balances.stderr);
    assert.equal(v0Balances.json.balances.find((b: { token: string }) => b.token === 'USDC')?.available, '10000000000', JSON.stringify(v0Balances.json));
    const v0Order = await v0Cli(first.url, ['createOrder', 'side=buy', 'orderType=limit', 'baseToken=HYPE', 'quoteToken=USDC', 'amount=1', 'price=41']);
    assert.equal(v0Order.status, 0, `${v0Order.stderr}\n${JSON.stringify(v0Order.json)}`);
    let v0Status = 'pending';
    for (const deadline = Date.now() + 30_000; ['pending', 'open'].includes(v0Status) && Date.now() < deadline;) {
      const listed = await v0Cli(first.url, ['listDelegatedOrders', 'limit=1']);
      assert.equal(listed.status, 0, listed.stderr);
      assert.equal(listed.json.orders[0].clientOrderId, v0Order.json.orderId);
      v0Status = listed.json.orders[0].status;
    }
    assert.equal(v0Status, 'filled', 'the /v0 order filled at the venue simulator');
    // The /v0 fill moved the taker's VENUE-rail balances: what the restart must resume is every
    // rail's balance as it stood at the stop, exactly as the API reports it.
    const byRailAndToken = (balances: Balance[]) => [...balances].sort((a, b) => `${a.rail}/${a.token}`.localeCompare(`${b.rail}/${b.token}`));
    const atStop = byRailAndToken((await taker.balances()).balances);

    const invariants = await admin.invariants();
    assert.deepEqual(invariants, { ok: true, violations: [] });

    assert.equal(await stop(first), 0, first.output());
    assert.match(first.output(), /SIGTERM: draining and stopping/);
    assert.equal(await rpcAnswers(first.devnetUrl), false, 'the devnet stops with the service');
    assert.deepEqual(await processesUsing(dataDir), [], 'no venue simulator (or anything else on the data directory) is left running');
    // The ledger, the keys and whatever PGlite, anvil and the simulator wrote are private.
    assert.deepEqual(await openToOthers(dataDir), [], 'every file under the data directory is 0600 and every directory 0700');

    const second = await start(port);
    process.stdout.write(`# restart to ready: ${(second.readyMs / 1000).toFixed(1)} s\n`);
    assert.equal(second.adminToken, first.adminToken);
    assert.equal(second.accessKey, first.accessKey);
    assert.match(second.output(), /• demo taker 0x[0-9a-fA-F]{40}: already funded/);
    assert.match(second.output(), /• demo taker at the venue: already funded/);
    assert.match(second.output(), /• demo taker on \/v0: already deposited, credited/);
    assert.equal(second.builderAddress, first.builderAddress);
    assert.deepEqual(await venuePositions(second.venueUrl, second.takerAddress), positionsAtStop, 'the venue positions resume as they stood at the stop');
    const resumed = new RfqClient(second.url, { accessKey: second.accessKey, secret: second.secret });
    assert.deepEqual(byRailAndToken((await resumed.balances()).balances), atStop);
    assert.deepEqual(await new AdminClient(second.url, second.adminToken).invariants(), { ok: true, violations: [] });
    assert.equal(await stop(second), 0, second.output());
    assert.deepEqual(await processesUsing(dataDir), []);
  });
});
