/**
 * Runs the guides: every runnable block of docs/operator-guide.md, docs/taker-quickstart.md,
 * docs/v0-guide.md (against the venue simulator) and docs/http-reference.md as a child process (the CLIs through `npm run`, curl for HTTP) against a
 * real harness node on a test chain, with exit statuses and documented output shapes checked
 * (convention in runnable-blocks.ts). The quickstart's trades settle for real: a test maker quotes
 * every RFQ in xchange mode, so `buy` ends SETTLED and exits 0 as the guide says. Also: the
 * documented production configuration passes the configuration validator, and the configuration
 * table names exactly the variables src/runtime/config.ts reads.
 *
 * One backend (PostgreSQL when TEST_DATABASE_URL is set, else PGlite): the guides test the
 * documented commands, not the store, which the matrix covers elsewhere.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatUnits, parseUnits } from 'viem';
import { backends } from '../helpers/backends.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from '../helpers/harness.ts';
import { startTestChain, testAccount, type TestChain } from '../helpers/chain.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import { loadConfig } from '../../src/runtime/config.ts';
import { startV0Stack } from '../helpers/v0.ts';
import { startVenueSim } from '../../sim/venue/index.ts';
import { ReferenceMaker } from '../../examples/maker/maker.ts';
import { venueFaucetOf } from '../../src/runtime/embedded-venue.ts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { isRunnable, keyPaths, outputPattern, parseBlocks, ShellSession, type Block } from './runnable-blocks.ts';
import { elapse } from '../helpers/eventually.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const guide = (name: string) => readFile(path.join(ROOT, 'docs', name), 'utf8');

/** Blocks marked `skip`, by the start of their text, with the reason. Kept exact both ways. */
const SKIPPED: Record<string, Array<{ starts: string; reason: string }>> = {
  'operator-guide.md': [
    { starts: 'export RFQ_URL=', reason: 'the test exports RFQ_URL and RFQ_ADMIN_TOKEN for its own node' },
    { starts: 'curl -fsS -H "Authorization: Bearer $RFQ_ADMIN_TOKEN" "$RFQ_URL/admin/v1/withdrawals', reason: 'needs a withdrawal id from a user-signed request; the endpoints are tested in test/chain/funds' },
    { starts: 'curl -fsS -X POST -H "Authorization: Bearer $RFQ_ADMIN_TOKEN" -H \'content-type: application/json\' \\\n  -d \'{"outcome"', reason: 'needs an UNRESOLVED withdrawal; resolve is tested with the broadcaster' },
    { starts: 'curl -fsS -X POST -H "Authorization: Bearer $RFQ_ADMIN_TOKEN" "$RFQ_URL/admin/v1/custody/transfers/', reason: 'needs a stuck custody transaction; cancel is tested in test/chain/funds/stuck-custody.test.ts' },
    { starts: 'curl -fsS -X POST -H "Authorization: Bearer $RFQ_ADMIN_TOKEN" -H \'content-type: application/json\' \\\n  -d \'{"txHash": "0x<tx>", "logIndex": 0, "note"', reason: 'needs a quarantined log; resolve is tested in test/chain/watcher/quarantine.test.ts' },
    { starts: 'curl -fsS -X POST -H "Authorization: Bearer $RFQ_ADMIN_TOKEN" -H \'content-type: application/json\' \\\n  -d \'{"txHash": "0x<tx>", "logIndex": 0}\'', reason: 'needs a quarantined log whose cause is then fixed; replay is tested in test/chain/watcher/quarantine.test.ts' },
    { starts: 'npm run --silent admin -- payouts retry', reason: 'needs a reverted promised payout; retry is tested in test/chain/funds/funds.test.ts' },
    { starts: 'podman build --format docker -t rfq-service .', reason: 'builds the image; scripts/container-test.ts builds and runs it with podman, test/runtime/container-files.test.ts checks the files' },
    { starts: 'RFQ_DB_PASSWORD=$(openssl rand -hex 24) podman compose up -d', reason: 'starts the compose stack; test/runtime/container-files.test.ts checks compose.yaml' },
    { starts: 'SMOKE_BUILDER_KEY=0x', reason: 'spends testnet funds with funded keys on the public testnet; test/scripts/testnet-smoke.test.ts runs the script against the simulator' },
  ],
  'taker-quickstart.md': [
    { starts: 'npm start', reason: 'the embedded stack has its own end-to-end test; the guide runs against a harness node seeded the same way' },
    { starts: 'npm run rfq -- buy 3 ETH-USDC --sweep', reason: "needs npm start's three demo makers, which the harness node does not run: test/runtime/embedded-start.test.ts runs this sweep" },
  ],
  'http-reference.md': [],
  'v0-guide.md': [
    { starts: 'export RFQ_URL=', reason: 'the demo taker of `npm start`; the guide funds a new wallet of its own (step 1)' },
    { starts: 'export V0_OMNIBUS=', reason: 'the banner values: the test exports V0_OMNIBUS, VENUE_URL and RFQ_URL for its own stack' },
  ],
};

function checkSkips(name: string, blocks: Block[]): void {
  const skipped = blocks.filter((b) => b.lang === 'sh' && b.attrs.skip).map((b) => b.body);
  const listed = SKIPPED[name]!;
  assert.equal(skipped.length, listed.length, `${name}: skipped blocks ${JSON.stringify(skipped)} vs the list`);
  for (const entry of listed) assert.ok(skipped.some((body) => body.startsWith(entry.starts)), `${name}: no skipped block starts with ${entry.starts}`);
}

/**
 * A directory that looks like the project (npm scripts resolve) with its own data directory:
 * `./.rfq-data`, or `dataDir` given as RFQ_DATA_DIR (so a path that ignores it fails).
 */
async function scratchProject(dataDir: string | undefined): Promise<{ cwd: string; env: Record<string, string> }> {
  const cwd = await mkdtemp(path.join(tmpdir(), 'rfq-guide-'));
  for (const entry of ['package.json', 'node_modules', 'src', 'examples', 'tsconfig.json']) await symlink(path.join(ROOT, entry), path.join(cwd, entry));
  const data = path.join(cwd, dataDir ?? '.rfq-data');
  await mkdir(data);
  // What `npm start` writes, so the admin CLI finds the token as the guides say.
  await writeFile(path.join(data, 'admin-token'), `${ADMIN_TOKEN}\n`, { mode: 0o600 });
  return { cwd, env: dataDir ? { RFQ_DATA_DIR: data } : {} };
}

/**
 * The PATH a reader's shell has: without the project's node_modules/.bin (which `npm test` puts
 * first), so a block that runs a bare `node` gets whatever Node the machine has, not the pinned one.
 */
const readerPath = () => (process.env.PATH ?? '/usr/bin:/bin').split(':').filter((dir) => !dir.endsWith(path.join('node_modules', '.bin'))).join(':');

/** Runs every runnable block of a guide in one session; returns the number of blocks run and the variables they left. */
async function runGuide(name: string, env: Record<string, string>, options: { dataDir?: string } = {}): Promise<{ ran: number; exported: Record<string, string> }> {
  const blocks = parseBlocks(await guide(name));
  checkSkips(name, blocks);
  const scratch = await scratchProject(options.dataDir);
  const cwd = scratch.cwd;
  const session = new ShellSession({ cwd, env: { PATH: readerPath(), HOME: cwd, ...scratch.env, ...env } });
  let ran = 0;
  try {
    for (const [index, block] of blocks.entries()) {
      if (!isRunnable(block)) continue;
      ran++;
      const started = await session.start(block);
      if (block.attrs.background) continue;
      const result = await started.done;
      const where = `${name}:${block.line}\n${block.body}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
      assert.equal(result.code, Number(block.attrs.exit ?? 0), `exit status of ${where}`);
      // The `text output` / `text stderr` blocks right after it show what it prints.
      for (let next = blocks[index + 1], i = index + 1; next?.lang === 'text' && (next.attrs.output || next.attrs.stderr); next = blocks[++i]) {
        const printed = next.attrs.output ? result.stdout : result.stderr;
        assert.match(printed.endsWith('\n') ? printed : `${printed}\n`, outputPattern(next.body), `documented ${next.attrs.output ? 'output' : 'stderr'} of ${where}`);
      }
    }
    for (const started of session.background()) {
      const result = await started.done;
      assert.equal(result.code, Number(started.block.attrs.exit ?? 0), `exit status of background ${name}:${started.block.line}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
    }
    return { ran, exported: await session.exported() };
  } finally {
    session.stopAll();
    await rm(cwd, { recursive: true, force: true });
  }
}

const ETH_PRICE_RAW = parseUnits('3000', 6);

/** A maker quoting every ETH-USDC BUY at 3000 USDC in xchange mode, so the quickstart's trades settle. */
async function startXchangeMaker(h: Harness, chain: TestChain): Promise<{ stop(): void; accepted: unknown[] }> {
  const maker = testAccount();
  const adapter = chain.stack.settings.xchangeAdapterAddress!;
  await h.admin.putMaker(maker.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['xchange'], adapterSigner: maker.address });
  const client = new RfqClient(h.url);
  await client.signIn(maker);
  // Disclosed as `npm start` discloses its first demo maker, for the guide's `--makers demo-maker-1`.
  await client.setProfile('demo-maker-1');
  await chain.fundGas(maker.address);
  await chain.approve(maker, 'ETH', adapter);
  await chain.mint('ETH', maker.address, parseUnits('100', 18));
  const { chainId } = await client.network();
  const { swapMessageFromWire, xchangeSwapTypedData } = await import('../../src/chain/xchange.ts');
  const quoted = new Set<string>();
  const accepted: unknown[] = [];
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      try {
        for (const rfq of (await client.openRfqs({ limit: 100 })).items) {
          if (quoted.has(rfq.id) || rfq.side !== 'BUY' || rfq.instrumentId !== 'ETH-USDC-SPOT') continue;
          quoted.add(rfq.id);
          const ethRaw = parseUnits(rfq.baseQty, 18);
          const usdcRaw = (ethRaw * ETH_PRICE_RAW) / 10n ** 18n;
          const swapMessage = {
            quoteId: `qt_${crypto.randomUUID()}`,
            expiration: String(rfq.settlementDeadline),
            incomingTransfer: { token: chain.token('ETH'), from: maker.address, to: chain.custody, amount: ethRaw.toString() },
            outgoingTransfer: { token: chain.token('USDC'), from: chain.custody, to: maker.address, amount: usdcRaw.toString() },
          };
          const adapterSignature = await maker.signTypedData(xchangeSwapTypedData({ chainId, adapterAddress: adapter, message: swapMessageFromWire(swapMessage) }));
          const xchange = { adapter: 'RfqXchangeAdapter', settlement: { swapMessage, adapterSignature } };
          await client.submitQuote({
            rfqId: rfq.id, instrumentId: rfq.instrumentId, side: 'BUY',
            makerPays: { token: 'ETH', amount: rfq.baseQty }, makerReceives: { token: 'USDC', amount: formatUnits(usdcRaw, 6) },
            xchange,
          });
          accepted.push(xchange);
        }
      } catch (error) {
        if (!stopped) console.error('test maker:', error);
      }
      await elapse(100, 'the test maker\'s pace: it looks for RFQs ten times a second');
    }
  };
  void loop();
  return { stop: () => { stopped = true; }, accepted };
}

/** The reference maker quoting ETH-USDC-PERP from the simulator's book, as the demo makers of `npm start` do. */
async function startPerpMaker(h: Harness, venue: { url: string; network: 'mainnet' }): Promise<ReferenceMaker> {
  await h.admin.putInstrument('ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 25, minQuoteNotional: '10' });
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  await venueFaucetOf(venue)({ address, account: 'perp', token: 'USDC', amount: '100000' });
  await h.admin.putMaker(address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['perp'] });
  const maker = new ReferenceMaker({
    baseUrl: h.url, privateKey: key, venue, log: () => {},
    instruments: [{ instrumentId: 'ETH-USDC-PERP', referencePrice: '3500', spreadBp: 10, maxBaseQty: '5', levelSize: '1' }],
  });
  await maker.start();
  return maker;
}

describe('guides', () => {
  const backend = backends().at(-1)!;
  let chain: TestChain;
  before(async () => {
    chain = await startTestChain();
  });
  after(async () => {
    await chain?.stop();
  });

  it('docs/operator-guide.md: every runnable block against an embedded-mode node', async () => {
    const h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, embedded: true, logLevel: 'silent' });
    try {
      const { ran } = await runGuide('operator-guide.md', { RFQ_URL: h.url, RFQ_ADMIN_TOKEN: ADMIN_TOKEN });
      assert.ok(ran >= 10, `ran ${ran} blocks`);
    } finally {
      await h.close();
    }
  });

  it('docs/taker-quickstart.md: every runnable block, trades settling on-chain (xchange) and at the venue simulator (perps)', async () => {
    const sim = await startVenueSim({ port: 0 });
    const venue = { url: sim.url, network: 'mainnet' as const, builderAddress: '0x00000000000000000000000000000000000000b4' as const };
    const h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, embedded: true, logLevel: 'silent', venue, embeddedVenue: { url: sim.url, faucet: venueFaucetOf(sim) } });
    let maker: Awaited<ReturnType<typeof startXchangeMaker>> | undefined;
    let perpMaker: ReferenceMaker | undefined;
    try {
      maker = await startXchangeMaker(h, chain);
      perpMaker = await startPerpMaker(h, venue);
      // What `npm start` will print: a demo taker, funded on the ledger and, for the same amount,
      // in custody on-chain (so its trades can pay out). The guide's own wallet is funded by
      // operator adjustment (step 3); custody gets those tokens here too.
      const demo = await h.newUser();
      await h.fund(demo.account.address, { USDC: '10000' });
      await chain.mint('USDC', chain.custody, parseUnits('20000', 6));
      const { ran } = await runGuide('taker-quickstart.md', {
        RFQ_URL: h.url,
        DEMO_ACCESS_KEY: demo.client.credentials!.accessKey,
        DEMO_SECRET: demo.client.credentials!.secret,
        // The banner's `devnet` line (step 5 gives the guide's wallet gas there).
        RPC_URL: chain.rpcUrl,
      }, { dataDir: 'moved-data' });
      assert.ok(ran >= 8, `ran ${ran} blocks`);
      // docs/maker-integration.md's quote body names exactly the fields of a bundle the server took.
      const example = parseBlocks(await guide('maker-integration.md')).filter((b) => b.lang === 'json' && b.attrs.xchange);
      assert.equal(example.length, 1);
      assert.ok(maker.accepted.length > 0);
      assert.deepEqual(keyPaths(JSON.parse(example[0]!.body)), keyPaths(maker.accepted[0]));
    } finally {
      maker?.stop();
      await perpMaker?.stop();
      await h.close();
      await sim.stop();
    }
  });

  it('docs/http-reference.md: every runnable block', async () => {
    const h = await startHarness(backend, { logLevel: 'silent' });
    try {
      assert.ok((await runGuide('http-reference.md', { RFQ_URL: h.url, RFQ_ADMIN_TOKEN: ADMIN_TOKEN })).ran >= 1);
    } finally {
      await h.close();
    }
  });

  it('docs/v0-guide.md: every runnable block against the venue simulator on testnet, funding included', async () => {
    // The embedded stack's venue: the simulator on testnet, its faucet served to the operator.
    const sim = await startVenueSim({ port: 0, config: { network: 'testnet' } });
    const stack = await startV0Stack(backend, { logLevel: 'silent', sim, network: 'testnet', embedded: true, embeddedVenue: { url: sim.url, faucet: venueFaucetOf(sim) } });
    try {
      // Step 1 of the guide makes and funds its own wallet; the variables are the banner's.
      const state = { RFQ_URL: stack.harness.url, V0_OMNIBUS: stack.omnibus.address, VENUE_URL: sim.url };
      const { ran, exported } = await runGuide('v0-guide.md', state);
      assert.ok(ran >= 6, `ran ${ran} blocks`);
      // The guide's own wallet (step 1), credited by its deposits alone.
      const token = await stack.login(privateKeyToAccount(exported.RFQ_V0_KEY as `0x${string}`));
      // What the blocks did: an IOC buy that filled, a resting sell that was cancelled, a withdrawal.
      const orders = await stack.call('listDelegatedOrders', {}, { token });
      assert.deepEqual(orders.body.orders.map((o: { side: string; status: string }) => `${o.side} ${o.status}`), ['sell cancelled', 'buy filled']);
      const withdrawals = await stack.call('getUserWithdrawals', {}, { token });
      assert.equal(withdrawals.body.withdrawals.length, 1);
      await stack.settle();
      assert.deepEqual((await stack.invariants()).violations, []);
    } finally {
      await stack.close();
      await sim.stop();
    }
  });

  it('the documented production configuration passes validation', async () => {
    const blocks = parseBlocks(await guide('operator-guide.md')).filter((b) => b.lang === 'env');
    assert.equal(blocks.length, 1);
    const env = Object.fromEntries(blocks[0]!.body.split('\n').filter((line) => line.includes('=')).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
    const config = loadConfig(env, '/srv/rfq');
    assert.equal(config.mode, 'production');
    assert.equal(config.chain.confirmations, 12);
    assert.deepEqual([...config.workers].sort(), ['auctions', 'dispatch', 'settlement', 'withdrawals']);
  });

  it('the Modes section names exactly the variables production mode requires', async () => {
    // What config.ts refuses when nothing is set: one "NAME: required in production mode" per variable.
    let problems: string[] = [];
    try {
      loadConfig({ RFQ_MODE: 'production' }, '/srv/rfq');
    } catch (error) {
      problems = (error as { problems: string[] }).problems;
    }
    const required = problems.filter((p) => p.includes(': required in production mode')).map((p) => p.slice(0, p.indexOf(':'))).sort();
    assert.ok(required.length >= 10, JSON.stringify(problems));
    const doc = await guide('operator-guide.md');
    const item = doc.slice(doc.indexOf('- **Production**'), doc.indexOf('## Configuration reference'));
    const documented = [...item.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!).filter((name) => name !== 'RFQ_MODE');
    assert.deepEqual([...new Set(documented)].sort(), required);
  });

  it('the configuration table names exactly the variables config.ts reads', async () => {
    const source = await readFile(path.join(ROOT, 'src/runtime/config.ts'), 'utf8');
    const read = new Set([...source.matchAll(/'((?:RFQ_[A-Z0-9_]+)|HOST|PORT|DATABASE_URL|CHAIN_RPC_URL|VENUE_URL)'/g)].map((m) => m[1]!));
    const doc = await guide('operator-guide.md');
    const section = doc.slice(doc.indexOf('## Configuration reference'), doc.indexOf('Operator settings live'));
    const documented = new Set([...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]!));
    assert.deepEqual([...documented].sort(), [...read].sort());
  });
});
