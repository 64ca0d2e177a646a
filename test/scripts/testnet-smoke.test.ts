/**
 * The testnet smoke script (scripts/testnet-smoke.ts) run as an operator runs it, as a child
 * process, with the venue simulator started for testnet in place of Hyperliquid's public testnet
 * (`SMOKE_VENUE_URL`). The accounts are funded here beforehand through `/_sim/fund`, as an operator
 * funds them from the testnet faucet; the script itself never calls `/_sim/*`. Without its keys
 * it starts nothing and exits 2 naming each missing one; with them it runs every step and leaves
 * the venue as it found it (no position, nothing resting, the spot USDC it moved to `/v0` back);
 * with the builder underfunded it fails that step by name and trades nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Address, Hex } from 'viem';
import { startVenueSim, type VenueSim } from '../../sim/venue/index.ts';
import { VenueSimControl } from '../../sim/venue/control.ts';
import { exited, runCli, type Run } from '../helpers/cli.ts';

const SCRIPT = 'scripts/testnet-smoke.ts';
const KEY_NAMES = ['SMOKE_BUILDER_KEY', 'SMOKE_MAKER_KEY', 'SMOKE_TAKER_KEY', 'SMOKE_OMNIBUS_KEY', 'SMOKE_OMNIBUS_AGENT_KEY'] as const;
/** The whole run: an embedded node's start (anvil, PGlite), a 10 s auction, the `/v0` deposit and withdrawal. */
const RUN_TIMEOUT_MS = 300_000;

type Keys = Record<(typeof KEY_NAMES)[number], Hex>;

function newKeys(): Keys {
  return Object.fromEntries(KEY_NAMES.map((name) => [name, generatePrivateKey()])) as Keys;
}

const addressOf = (key: Hex): Address => privateKeyToAccount(key).address;

describe('scripts/testnet-smoke.ts', () => {
  let sim: VenueSim;
  let control: VenueSimControl;
  let info: InfoClient;
  let scratch: string;

  const smoke = (env: Record<string, string>, timeoutMs = RUN_TIMEOUT_MS): Promise<Run> => runCli(SCRIPT, [], scratch, env, timeoutMs);
  const venueEnv = (keys: Keys) => ({ ...keys, SMOKE_VENUE_URL: sim.url });

  /** What an operator holds on the testnet before a run; the builder's perps account value is the variable. */
  async function fund(keys: Keys, builderUsdc: string): Promise<void> {
    await control.fund({ user: addressOf(keys.SMOKE_BUILDER_KEY), account: 'perp', token: 'USDC', amount: builderUsdc });
    await control.fund({ user: addressOf(keys.SMOKE_MAKER_KEY), account: 'perp', token: 'USDC', amount: '1000' });
    await control.fund({ user: addressOf(keys.SMOKE_TAKER_KEY), account: 'perp', token: 'USDC', amount: '1000' });
    await control.fund({ user: addressOf(keys.SMOKE_TAKER_KEY), account: 'spot', token: 'USDC', amount: '100' });
    // The omnibus has deposited before, so the venue knows it (the script refuses an unknown one).
    await control.fund({ user: addressOf(keys.SMOKE_OMNIBUS_KEY), account: 'spot', token: 'USDC', amount: '1' });
  }

  async function ethPosition(user: Address): Promise<string> {
    return (await info.clearinghouseState({ user })).assetPositions.find((p) => p.position.coin === 'ETH')?.position.szi ?? '0';
  }

  before(async () => {
    sim = await startVenueSim({ port: 0, config: { network: 'testnet' } });
    control = new VenueSimControl(sim.url);
    info = new InfoClient({ transport: new HttpTransport({ apiUrl: sim.url, isTestnet: true, timeout: 10_000 }) });
    scratch = await mkdtemp(path.join(tmpdir(), 'rfq-smoke-test-'));
  });

  after(async () => {
    await sim?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('without its keys it prints the usage naming each missing one and exits 2, starting nothing', async () => {
    const none = exited(await smoke({}, 30_000), 2);
    for (const name of KEY_NAMES) assert.match(none.stderr, new RegExp(`${name} is not set`), none.stderr);
    assert.match(none.stderr, /usage: npm run smoke:testnet/);
    assert.match(none.stderr, /spends testnet funds/);
    assert.doesNotMatch(none.stdout, /== service/, 'no step ran');

    const { SMOKE_BUILDER_KEY, SMOKE_MAKER_KEY, SMOKE_TAKER_KEY } = newKeys();
    const some = exited(await smoke({ SMOKE_BUILDER_KEY, SMOKE_MAKER_KEY, SMOKE_TAKER_KEY: SMOKE_TAKER_KEY.slice(0, 20) }, 30_000), 2);
    assert.match(some.stderr, /SMOKE_TAKER_KEY must be 0x followed by 64 hex digits/);
    assert.match(some.stderr, /SMOKE_OMNIBUS_KEY is not set; SMOKE_OMNIBUS_AGENT_KEY is not set/);
    assert.doesNotMatch(some.stderr, /SMOKE_(BUILDER|MAKER)_KEY (is not set|must be)/);
  });

  it('with the accounts funded it runs a perp RFQ and a /v0 order end to end, cleans up after them and exits 0', async () => {
    const keys = newKeys();
    await fund(keys, '200');
    const run = exited(await smoke(venueEnv(keys)), 0);
    for (const step of ['service', 'builder', 'perp RFQ', 'perp clean-up', '/v0 order', '/v0 clean-up', 'service stop']) {
      assert.match(run.stdout, new RegExp(`^  ok\\s+${step.replace('/', '\\/')}\\s`, 'm'), `${step} passed:\n${run.stdout}`);
    }
    assert.match(run.stdout, /ok\s+perp RFQ\s.*SETTLED rfq_/);
    assert.match(run.stdout, /bought\s+0\.0043 ETH \(perp\)/, 'the taker filled at the venue');
    assert.match(run.stdout, /maker: settled qt_\S+ \(rfq_\S+\) at the venue: our order filled 0\.0043/, 'the maker\'s ALO was the other side');
    assert.match(run.stdout, /ok\s+\/v0 order\s.*dord_\S+ expired: buy \S+ HYPE/, 'the /v0 IOC reached the venue and matched nothing');
    assert.match(run.stdout, /testnet-smoke: all steps passed/);

    const [builder, maker, taker, omnibus, agent] = KEY_NAMES.map((name) => addressOf(keys[name]));
    // The builder fee was approved by the taker and charged on the fill.
    assert.ok((await info.maxBuilderFee({ user: taker!, builder: builder! })) >= 25);
    assert.ok(Number((await info.clearinghouseState({ user: builder! })).marginSummary.accountValue) > 200, 'the builder earned its fee');
    // Left as found: no position, nothing resting, the taker's spot USDC back from /v0.
    assert.equal(Number(await ethPosition(taker!)), 0);
    assert.equal(Number(await ethPosition(maker!)), 0);
    assert.deepEqual(await info.openOrders({ user: maker! }), []);
    const spot = await info.spotClearinghouseState({ user: taker! });
    assert.equal(spot.balances.find((b) => b.coin === 'USDC')?.total, '100.0');
    // The script approved the omnibus's API wallet, as the operator of a fresh omnibus would.
    assert.ok((await info.extraAgents({ user: omnibus! })).some((a) => a.address.toLowerCase() === agent!.toLowerCase()));
  });

  it('with the builder under 100 USDC it fails the builder step by name, trades nothing and exits 1', async () => {
    const keys = newKeys();
    await fund(keys, '50');
    const run = exited(await smoke(venueEnv(keys)), 1);
    // A failed run keeps its data directory and log for the operator; the test has read what it needs.
    const kept = /^kept (\S+) /m.exec(run.stdout)?.[1];
    assert.ok(kept, run.stdout);
    await rm(kept, { recursive: true, force: true });
    assert.match(run.stderr, /testnet-smoke: FAILED at builder\n/, run.stdout);
    assert.match(run.stdout, /^  FAILED\s+builder\s.*holds 50\.0 USDC of perps account value; the venue approves no builder fee below 100 USDC/m);
    assert.match(run.stdout, /^  skipped\s+perp RFQ\s/m);
    assert.match(run.stdout, /^  ok\s+service stop\s/m, 'the service is stopped all the same');
    const taker = addressOf(keys.SMOKE_TAKER_KEY);
    assert.equal(await info.maxBuilderFee({ user: taker, builder: addressOf(keys.SMOKE_BUILDER_KEY) }), 0, 'no fee approved');
    assert.equal(Number(await ethPosition(taker)), 0);
  });
});
