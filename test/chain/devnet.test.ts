// The embedded devnet and deterministic, idempotent deployment onto it.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEther, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startDevnet, type Devnet } from '../../src/chain/devnet.ts';
import { CREATE2_DEPLOYER, CREATE2_DEPLOYER_RUNTIME, PERMIT2_ADDRESS, deployContracts } from '../../src/chain/deploy.ts';
import { connectChain, connectSigner } from '../../src/chain/clients.ts';
import { mintTestToken, setDevnetBalance } from '../../src/chain/faucet.ts';
import { rfqMakerWrapperFactoryAbi, testTokenAbi } from '../../src/chain/artifacts/index.ts';
import { permit2RuntimeCode } from '../../src/chain/permit2-code.ts';
import { keyOf } from './helpers/fixture.ts';
import { waitFor } from '../helpers/eventually.ts';

const running: Devnet[] = [];
const dirs: string[] = [];
after(async () => {
  await Promise.all(running.map((d) => d.stop()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function start(opts: Parameters<typeof startDevnet>[0] = {}) {
  const d = await startDevnet(opts);
  running.push(d);
  return d;
}

const deployer = privateKeyToAccount(keyOf('deployer'));
const custody = privateKeyToAccount(keyOf('custody')).address;
const maker = privateKeyToAccount(keyOf('maker')).address;
const TOKENS = [
  { symbol: 'USDC', decimals: 6 },
  { symbol: 'WETH', decimals: 18 },
];

async function deploy(rpcUrl: string, wrapperOwners: Address[] = []) {
  return deployContracts({ rpcUrl, deployerKey: keyOf('deployer'), custodyAddress: custody, tokens: TOKENS, wrapperOwners });
}

/** Without a state file anvil keeps the block clock (--block-time, --mixed-mining); with one, the state keeper does (devnet-state.ts). */
async function stateFileOf(withState: boolean): Promise<{ stateFile?: string }> {
  if (!withState) return {};
  const dir = await mkdtemp(join(tmpdir(), 'rfq-devnet-'));
  dirs.push(dir);
  return { stateFile: join(dir, 'state.json') };
}

describe('startDevnet', () => {
  for (const withState of [false, true]) {
    const mode = withState ? ' (state file: the keeper mines)' : '';
    it(`answers on a loopback port with chain id 31337, mines every second without traffic, stops cleanly${mode}`, async () => {
      const d = await start(await stateFileOf(withState));
      assert.match(d.rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      const { publicClient } = await connectChain(d.rpcUrl);
      assert.equal(await publicClient.getChainId(), 31337);
      const b0 = await publicClient.getBlockNumber({ cacheTime: 0 });
      await waitFor(async () => (await publicClient.getBlockNumber({ cacheTime: 0 })) >= b0 + 2n, 'interval mining: two blocks without traffic', { timeoutMs: 5_000, pollMs: 100 });

      await d.stop();
      await d.stop(); // idempotent
      assert.throws(() => process.kill(d.pid, 0), /ESRCH/);
      await assert.rejects(fetch(d.rpcUrl, { method: 'POST', body: '{}' }));
    });

    it(`mines a transaction at once, without waiting for the interval${mode}`, async () => {
      const d = await start({ blockTimeSecs: 60, ...(await stateFileOf(withState)) });
      await setDevnetBalance({ rpcUrl: d.rpcUrl, address: deployer.address, wei: parseEther('1') });
      const c = await connectSigner(d.rpcUrl, keyOf('deployer'));
      const t0 = Date.now();
      const hash = await c.walletClient.sendTransaction({ to: custody, value: 1n });
      const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
      assert.equal(receipt.status, 'success');
      assert.ok(Date.now() - t0 < 10_000, 'mined long before the 60 s interval');
      await d.stop();
    });
  }

  it('anvil goes away when the owning process exits without calling stop()', async () => {
    const devnetModule = new URL('../../src/chain/devnet.ts', import.meta.url).href;
    const script = `const { startDevnet } = await import(${JSON.stringify(devnetModule)}); const d = await startDevnet(); console.log(d.rpcUrl); process.exit(0);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    const rpcUrl = r.stdout.trim();
    assert.match(rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    await waitFor(async () => !(await fetch(rpcUrl, { method: 'POST', body: '{}' }).then(() => true, () => false)), 'the devnet stops with the process that started it', { timeoutMs: 5_000, pollMs: 100 });
  });

  it('two devnets get different ports; a fixed port already in use is refused', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    assert.notEqual(a.port, b.port);
    await assert.rejects(start({ port: a.port }), /not available/);
    await Promise.all([a.stop(), b.stop()]);
  });
});

describe('deployContracts', () => {
  it('places Permit2 at the canonical address and resumes from a persisted state without redeploying', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rfq-devnet-'));
    dirs.push(dir);
    const stateFile = join(dir, 'state.json');

    const d1 = await start({ stateFile });
    await setDevnetBalance({ rpcUrl: d1.rpcUrl, address: deployer.address, wei: parseEther('10') });
    const first = await deploy(d1.rpcUrl, [maker]);
    assert.equal(first.permit2Address, PERMIT2_ADDRESS);
    assert.deepEqual(first.tokens.map((t) => [t.symbol, t.decimals]), [['USDC', 6], ['WETH', 18]]);
    const c1 = await connectChain(d1.rpcUrl);
    assert.equal(await c1.publicClient.getCode({ address: PERMIT2_ADDRESS }), permit2RuntimeCode(await c1.publicClient.getChainId(), PERMIT2_ADDRESS));
    // anvil predeploys the CREATE2 proxy; our fallback copy of its code must be the same.
    assert.equal(await c1.publicClient.getCode({ address: CREATE2_DEPLOYER }), CREATE2_DEPLOYER_RUNTIME);
    const usdc = first.tokens[0]!.address;
    assert.equal(await c1.publicClient.readContract({ address: usdc, abi: testTokenAbi, functionName: 'decimals' }), 6);
    assert.equal(await c1.publicClient.readContract({ address: usdc, abi: testTokenAbi, functionName: 'owner' }), deployer.address);
    assert.equal(
      await c1.publicClient.readContract({ address: first.wrapperFactoryAddress, abi: rfqMakerWrapperFactoryAbi, functionName: 'wrapperOf', args: [maker] }),
      first.wrappers[maker],
    );
    await mintTestToken({ rpcUrl: d1.rpcUrl, ownerKey: keyOf('deployer'), token: usdc, decimals: 6, to: maker, amount: '12.5' });
    const nonceAfterDeploy = await c1.publicClient.getTransactionCount({ address: deployer.address });
    await d1.stop();

    const d2 = await start({ stateFile });
    const c2 = await connectChain(d2.rpcUrl);
    assert.equal(await c2.publicClient.readContract({ address: usdc, abi: testTokenAbi, functionName: 'balanceOf', args: [maker] }), 12_500_000n);
    const second = await deploy(d2.rpcUrl, [maker]);
    assert.deepEqual(second, first);
    assert.equal(await c2.publicClient.getTransactionCount({ address: deployer.address }), nonceAfterDeploy, 'no transactions sent');
    await d2.stop();
  });

  it('addresses do not depend on the deployer nonce', async () => {
    const a = await start({ blockTimeSecs: 60 });
    const b = await start({ blockTimeSecs: 60 });
    for (const d of [a, b]) await setDevnetBalance({ rpcUrl: d.rpcUrl, address: deployer.address, wei: parseEther('10') });
    const cb = await connectSigner(b.rpcUrl, keyOf('deployer'));
    await cb.publicClient.waitForTransactionReceipt({ hash: await cb.walletClient.sendTransaction({ to: custody, value: 1n }) });
    assert.deepEqual(await deploy(b.rpcUrl), await deploy(a.rpcUrl));
    await Promise.all([a.stop(), b.stop()]);
  });
});
