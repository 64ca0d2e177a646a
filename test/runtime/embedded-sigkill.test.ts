/**
 * A SIGKILL of the whole embedded stack (`kill -9 -<pgid>`: node, anvil, venue
 * simulator) at a random moment under trades and on-chain deposits must not brick it. After each
 * kill `npm start` runs again on the same data directory and must: be ready (the chain follower
 * not halted), settle the next trade, credit exactly once every deposit the chain still has and
 * none it lost, hold every SETTLED trade's transaction on the chain, and report no invariant
 * violation (custody included), nor any failure recorded against a maker (the settlements a kill
 * cut short lapse while no node was alive). The last round kills the node alone: its children must
 * not outlive it.
 *
 * Seeds: RFQ_SIGKILL_SEEDS (a seed or a range `a-b`; default 1-3, what CI runs) and
 * RFQ_SIGKILL_ROUNDS (rounds per seed, default 1) pick the kill moments. The seeds run one after
 * the other on one stack and one data directory (a kill round does not care what came before, and
 * the first start, deploying the devnet, is the costliest part); every round prints its seed, so a
 * failure names it. `scripts/sigkill-soak.ts` runs many seeds.
 *
 * Kept short without checking less: the operator's settlement headroom is 15 s (default 60), so
 * the trades a kill left QUOTED (their maker's relay lost) expire by chain time within seconds of
 * the restart instead of a minute, and the chain reads of a check run in parallel. Each start
 * prints when each of its steps arrived and each check its phases, so a slow run says where its
 * time went (it was the devnet's saves, spaced by a pause that spanned PGlite's start: nothing
 * final for a minute or two; see devnet-state.ts `saveSpacingMs`).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { erc20Abi, type Address, type Hex } from 'viem';
import { RfqClient } from '../../src/client/rfq-client.ts';
import { AdminClient } from '../../src/client/admin-client.ts';
import type { Deposit, Page, Rfq } from '../../src/client/types.ts';
import { connectSigner } from '../../src/chain/clients.ts';
import { mintRawTestToken } from '../../src/chain/faucet.ts';
import { freePort, processesUsing, startEmbedded, type Started } from '../helpers/embedded-node.ts';
import { elapse, waitFor } from '../helpers/eventually.ts';

const SEEDS = seedList(process.env.RFQ_SIGKILL_SEEDS ?? process.env.RFQ_SIGKILL_SEED ?? '1-3');
const ROUNDS = Number(process.env.RFQ_SIGKILL_ROUNDS ?? '1');
/** Auction end to settlement deadline for the test's trades (the operator setting; default 60 s). */
const SETTLEMENT_HEADROOM_SECS = 15;
/** The kill lands this long after the load starts, drawn per round. */
const KILL_AFTER_MS = [1500, 7000] as const;
const DEPOSIT_RAW = 1_000_000n; // 1 USDC

const children = new Set<ChildProcess>();
let dataDir = '';

after(async () => {
  for (const child of children) if (child.pid) killGroup(child.pid);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function seedList(spec: string): number[] {
  const [from, to] = spec.includes('-') ? spec.split('-').map(Number) as [number, number] : [Number(spec), Number(spec)];
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** mulberry32: the kill moments are a function of the seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function all<T>(read: (cursor?: string) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await read(cursor);
    items.push(...page.items);
    if (!page.hasMore || !page.nextCursor) return items;
    cursor = page.nextCursor;
  }
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 45_000): Promise<T> {
  // A probe that throws (the stack is still starting) counts as not yet; the last error is told.
  let last: unknown = null;
  const attempt = async () => {
    try {
      return await probe();
    } catch (error) {
      last = error;
      return null;
    }
  };
  try {
    return (await waitFor(attempt, what, { timeoutMs, pollMs: 250 })) as T;
  } catch (error) {
    throw new Error(`${(error as Error).message}${last ? ` (${String(last)})` : ''}`);
  }
}

interface Load {
  rfqIds: string[];
  depositTxs: Hex[];
  stop(): Promise<void>;
}

/** Trades (auto-accepted RFQs) and on-chain deposits from the demo taker, until stopped or the stack dies. */
async function startLoad(s: Started, usdc: Address, custody: Address): Promise<Load> {
  const taker = new RfqClient(s.url, { accessKey: s.accessKey, secret: s.secret });
  const takerKey = (await readFile(path.join(dataDir, 'demo-taker-key'), 'utf8')).trim() as Hex;
  const deployerKey = (await readFile(path.join(dataDir, 'deployer-key'), 'utf8')).trim() as Hex;
  const wallet = await connectSigner(s.devnetUrl, takerKey);
  const minted = await mintRawTestToken({ rpcUrl: s.devnetUrl, ownerKey: deployerKey, token: usdc, to: wallet.account.address, raw: 1000n * DEPOSIT_RAW });
  await wallet.publicClient.waitForTransactionReceipt({ hash: minted });
  const load: Load = { rfqIds: [], depositTxs: [], stop: async () => undefined };
  let running = true;
  const trades = (async () => {
    while (running) {
      try {
        const created = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '0.01', quoteLimit: '100000', autoAccept: true, windowMs: 1000 });
        load.rfqIds.push(created.rfqId);
      } catch {
        // the stack is being killed
      }
      await elapse(400, 'the load\'s pace: an RFQ every 400 ms');
    }
  })();
  const deposits = (async () => {
    let nonce = await wallet.publicClient.getTransactionCount({ address: wallet.account.address, blockTag: 'pending' });
    while (running) {
      try {
        const hash = await wallet.walletClient.writeContract({ address: usdc, abi: erc20Abi, functionName: 'transfer', args: [custody, DEPOSIT_RAW], nonce, gas: 100_000n });
        load.depositTxs.push(hash);
        nonce++;
      } catch {
        // the stack is being killed
      }
      await elapse(300, 'the load\'s pace: a deposit every 300 ms');
    }
  })();
  load.stop = async () => {
    running = false;
    await Promise.all([trades, deposits]);
  };
  return load;
}

async function receiptStatus(rpcUrl: string, hash: string): Promise<string | null> {
  const res = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [hash] }) });
  const body = (await res.json()) as { result: { status: string } | null };
  return body.result?.status ?? null;
}

/** Seconds each phase of a check took, printed with the round: where the test's time goes. */
function phaseClock(): { lap(name: string): void; toString(): string } {
  const laps: string[] = [];
  let last = performance.now();
  return {
    lap(name) {
      const now = performance.now();
      laps.push(`${name} ${((now - last) / 1000).toFixed(1)}`);
      last = now;
    },
    toString: () => laps.join(', '),
  };
}

/** The node's log lines at warn level or above (pino: 40+) and its stderr lines, the last 30. */
const warnings = (s: Started) => s.output().split('\n').filter((l) => /"level":[4-6]0|^rfq-service:|failed/.test(l)).slice(-30).join('\n');

/** Where a start spent its time: each step with the seconds since the spawn. */
const stepTimes = (s: Started) => s.steps.map((x) => `${x.atSecs.toFixed(1)} ${x.step.split(/[:(]/)[0]!.trim()}`).join(' | ');

/** Everything a restart must show: resumes, settles the next trade, deposits once, SETTLED on chain, invariants. */
async function checkResumed(s: Started, sentDeposits: Hex[], label: string): Promise<void> {
  const clock = phaseClock();
  const ready = await fetch(`${s.url}/readyz`);
  assert.equal(ready.status, 200, `${label}: ready after the restart: ${await ready.text()}\n${s.output()}`);
  const taker = new RfqClient(s.url, { accessKey: s.accessKey, secret: s.secret });
  const admin = new AdminClient(s.url, s.adminToken);
  const next = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '0.01', quoteLimit: '100000', autoAccept: true, windowMs: 1000 });
  const settled = await until('the next trade SETTLED', async () => {
    const rfq = await taker.getRfq(next.rfqId);
    assert.ok(rfq.status !== 'FAILED' && rfq.status !== 'CANCELLED', `${label}: next trade ended ${rfq.status}: ${JSON.stringify(rfq)}\nthe node's warnings and errors since the restart:\n${warnings(s)}`);
    return rfq.status === 'SETTLED' ? rfq : null;
  });
  assert.equal(await receiptStatus(s.devnetUrl, settled.txHash!), '0x1');
  clock.lap('next trade settled');

  // Deposits: the ones the chain kept are credited once; the ones lost with unsaved blocks never.
  const statuses = await Promise.all(sentDeposits.map((hash) => receiptStatus(s.devnetUrl, hash)));
  const onChain = new Set(sentDeposits.filter((_, i) => statuses[i] === '0x1').map((hash) => hash.toLowerCase()));
  const deposits = await until('every deposit on the chain credited', async () => {
    const list = await all<Deposit>((cursor) => taker.deposits({ limit: 100, ...(cursor ? { cursor } : {}) }));
    const completed = list.filter((d) => d.status === 'COMPLETED').map((d) => d.txHash.toLowerCase());
    return [...onChain].every((h) => completed.includes(h)) ? list : null;
  });
  clock.lap('deposits credited');
  const completed = deposits.filter((d) => d.status === 'COMPLETED').map((d) => d.txHash.toLowerCase());
  assert.equal(new Set(completed).size, completed.length, 'no deposit credited twice');
  for (const hash of sentDeposits) {
    if (onChain.has(hash.toLowerCase())) continue;
    assert.ok(!completed.includes(hash.toLowerCase()), `deposit ${hash} is not on the chain but was credited`);
  }

  const settledRfqs = await all<Rfq>((cursor) => taker.listRfqs({ status: 'SETTLED', limit: 100, ...(cursor ? { cursor } : {}) }));
  const settledStatuses = await Promise.all(settledRfqs.map((rfq) => receiptStatus(s.devnetUrl, rfq.txHash!)));
  settledRfqs.forEach((rfq, i) => assert.equal(settledStatuses[i], '0x1', `SETTLED RFQ ${rfq.id} has its transaction ${rfq.txHash} on the chain`));
  clock.lap('SETTLED on chain');
  // Trades of the killed run may still be settling or expiring: invariants once nothing is in flight.
  await until('no RFQ in flight', async () => (await taker.listRfqs({ status: 'QUOTED', limit: 1 })).items.length === 0 && (await taker.listRfqs({ status: 'PENDING', limit: 1 })).items.length === 0, (SETTLEMENT_HEADROOM_SECS + 45) * 1000);
  clock.lap('in flight ended');
  // Trades a kill cut short fail at their deadline, but the service, not the maker, was missing
  // (service-outages.ts): nothing is recorded against a maker, so none is ever suspended for it.
  for (const maker of (await admin.listMakers()).makers) {
    const record = await admin.call<{ failures: unknown[]; suspendedUntil: number | null }>('GET', `/makers/${String(maker['address'])}/failures`);
    assert.deepEqual([record.failures, record.suspendedUntil], [[], null], `${label}: maker ${String(maker['address'])} blamed for the outage`);
  }
  assert.deepEqual(await admin.invariants(), { ok: true, violations: [] }, `${label}: invariants`);
  clock.lap('invariants');
  process.stdout.write(`# ${label} resumed: ${settledRfqs.length} SETTLED on chain, ${onChain.size}/${sentDeposits.length} deposits on chain and credited once (s: ${String(clock)})\n`);
}

describe(`SIGKILL of the embedded stack (seeds ${SEEDS.join(', ')}, ${ROUNDS} round(s) each)`, { timeout: 10 * 60_000 }, () => {
  it('resumes after each kill: next trade settles, deposits credited once, SETTLED on chain, invariants ok; children never orphaned', async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'rfq-sigkill-'));
    const port = await freePort();
    let current = await startEmbedded(dataDir, port, children, { detached: true });
    process.stdout.write(`# first start to ready ${(current.readyMs / 1000).toFixed(1)} s (${stepTimes(current)})\n`);
    const settings = await new AdminClient(current.url, current.adminToken).putSettings({ settlementHeadroomSecs: SETTLEMENT_HEADROOM_SECS });
    assert.equal(settings['settlementHeadroomSecs'], SETTLEMENT_HEADROOM_SECS);
    const network = await new RfqClient(current.url, { accessKey: current.accessKey, secret: current.secret }).network();
    const usdc = network.tokens.find((t) => t.symbol === 'USDC')!.address as Address;
    const custody = network.custodyAddress as Address;
    const sent: Hex[] = [];
    let random = prng(SEEDS[0]!);
    for (const [seed, round] of SEEDS.flatMap((seed) => Array.from({ length: ROUNDS }, (_, r) => [seed, r + 1] as const))) {
      if (round === 1) random = prng(seed);
      const label = `seed ${seed} round ${round}`;
      const loadAt = performance.now();
      const load = await startLoad(current, usdc, custody);
      process.stdout.write(`# ${label}: load set up in ${((performance.now() - loadAt) / 1000).toFixed(1)} s\n`);
      const killAfter = Math.round(KILL_AFTER_MS[0] + random() * (KILL_AFTER_MS[1] - KILL_AFTER_MS[0]));
      await elapse(killAfter, 'the kill lands at a seeded moment of the load');
      const exited = new Promise((resolve) => current.child.once('exit', resolve));
      killGroup(current.child.pid!);
      await exited;
      await load.stop();
      sent.push(...load.depositTxs);
      process.stdout.write(`# ${label}: killed the process group ${killAfter} ms into the load (${load.rfqIds.length} RFQs, ${load.depositTxs.length} deposits sent)\n`);
      current = await startEmbedded(dataDir, port, children, { detached: true });
      process.stdout.write(`# ${label}: restart to ready ${(current.readyMs / 1000).toFixed(1)} s (${stepTimes(current)})\n`);
      const checkedAt = performance.now();
      await checkResumed(current, sent, label);
      process.stdout.write(`# ${label}: checked in ${((performance.now() - checkedAt) / 1000).toFixed(1)} s\n`);
    }

    // The node alone killed: anvil and the venue simulator are tied to it and exit too.
    const exited = new Promise((resolve) => current.child.once('exit', resolve));
    process.kill(current.child.pid!, 'SIGKILL');
    await exited;
    const left = await until('children of the killed node gone', async () => ((await processesUsing(dataDir)).length === 0 ? true : null), 10_000).catch(async () => processesUsing(dataDir));
    assert.equal(left, true, `still running after the node was SIGKILLed: ${JSON.stringify(left)}`);
  });
});
