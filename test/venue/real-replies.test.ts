/**
 * Contract tests on the venue's real replies (fixtures/README.md names each file's source): the
 * recorded bodies are served verbatim over HTTP to the venue adapters, and every parser reads
 * them (meta, API wallets, user roles, account value, order outcomes, order look-ups, fills, the
 * omnibus's ledger rows, the book). Then the simulator's replies to the same requests are held to
 * the recordings' keys and number forms (`"529.0"`, not `"529"`).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Address, Hex } from 'viem';
import { VenueClient, parseUserRole } from '../../src/venue/venue-client.ts';
import { VenueHttp, firstStatus } from '../../src/venue/omnibus/venue-http.ts';
import { omnibusTransferOf, type LedgerUpdate } from '../../src/venue/omnibus/ledger-update.ts';
import { findCoin } from '../../src/services/perp/venue-port.ts';
import { cancelSucceeded, isMakerFault, isVenueFill, lookedUpOrder, orderOutcome } from '../../src/domain/perp/order-outcome.ts';
import { summariseFills } from '../../src/domain/perp/fills.ts';
import { venueUnitsDown, venueUnitsUp } from '../../src/domain/v0/venue-grid.ts';
import { fixture, startReplayServer, type ReplayServer } from './fixtures/replay-server.ts';
import { cloidOf, limit, newWallet, postRaw, startSim, type SimFixture } from '../sim/venue/helpers.ts';

const INFO = {
  meta: 'info/meta.json',
  extraAgents: 'info/extraAgents.json',
  userRole: 'info/userRole.json',
  clearinghouseState: 'info/clearinghouseState.json',
  userFillsByTime: 'info/userFillsByTime.json',
  orderStatus: 'info/orderStatus.json',
  userNonFundingLedgerUpdates: 'info/userNonFundingLedgerUpdates.json',
  l2Book: 'info/l2Book.json',
} as const;

const SOL = 2;
const USER = '0x2ba553d9f990a3b66b03b2dc0d030dfc1c061036' as Address;
const SIGNED = { action: { type: 'order' }, nonce: 1, signature: { r: `0x${'1'.repeat(64)}`, s: `0x${'2'.repeat(64)}`, v: 27 } } as const;

describe('the venue adapters on the venue\u2019s recorded replies', () => {
  let replay: ReplayServer;
  let venue: VenueClient;
  before(async () => {
    replay = await startReplayServer(Object.fromEntries(Object.entries(INFO).map(([type, path]) => [type, fixture(path)])));
    venue = new VenueClient({ url: replay.url, network: 'mainnet', builderAddress: null });
  });
  after(() => replay?.stop());

  it('reads meta: exact names at their indices, szDecimals', async () => {
    const meta = await venue.freshMeta();
    assert.deepEqual(findCoin(meta, 'BTC'), { name: 'BTC', szDecimals: 5, isDelisted: false, assetIndex: 0 });
    assert.deepEqual(findCoin(meta, 'kPEPE'), { name: 'kPEPE', szDecimals: 0, isDelisted: false, assetIndex: 15 });
    assert.equal(meta.universe.length, 28);
  });

  it('reads named API wallets (extraAgents) and a user\u2019s role (userRole)', async () => {
    assert.deepEqual(await venue.extraAgents(USER), [
      { address: '0x286edfa08c04f6899dab3bfdecf2dd133f9733b9', validUntil: 1767776120478 },
      { address: '0xc06e6617005c1888aeb8b3017fe00f82b7b84fc0', validUntil: 1771174068515 },
    ]);
    assert.deepEqual(await venue.userRole(USER), { role: 'vault' });
    assert.deepEqual(parseUserRole({ role: 'agent', data: { user: '0x286EDFA08C04F6899DAB3BFDECF2DD133F9733B9' } }), { role: 'agent', user: '0x286edfa08c04f6899dab3bfdecf2dd133f9733b9' });
    assert.throws(() => parseUserRole({ role: 'agent' }), /userRole/);
  });

  it('reads the perps account value as the venue writes it', async () => {
    assert.equal(await venue.perpAccountValue(USER), '1182.312496');
  });

  it('reads an order look-up with sizes written "529.0": ended, nothing filled', async () => {
    const reply = await venue.orderStatusByCloid(USER, `0x${'0'.repeat(31)}1`);
    assert.deepEqual(lookedUpOrder(reply), { kind: 'ended', status: 'iocCancelRejected', filled: false });
    replay.info.set('orderStatus', fixture('info/orderStatus-unknown.json'));
    assert.deepEqual(lookedUpOrder(await venue.orderStatusByCloid(USER, `0x${'0'.repeat(31)}1`)), { kind: 'unknown' });
    replay.info.set('orderStatus', fixture(INFO.orderStatus));
  });

  it('reads fills: every row a fill, one order summed exactly', async () => {
    const fills = await venue.userFillsByTime(USER, 0);
    assert.ok(fills.length > 100 && fills.every(isVenueFill), 'every real fill row passes the fill check');
    const sui = fills.filter((fill) => fill.oid === 189324432);
    // 142.7 @ 1.3189 + 3749.1 @ 1.3167 + 731.7 @ 1.3093 = 6082.66181 over 4623.5, truncated at 8 decimals.
    assert.deepEqual(summariseFills(sui), { filledSize: '4623.5', avgPx: '1.3155968' });
  });

  it('reads order outcomes: resting, filled, a refusal with a final period, an IOC miss with asset=N, a whole-request refusal', async () => {
    const outcomes = [];
    for (const file of ['order-resting', 'order-filled', 'order-error', 'order-ioc-unmatched', 'err-unknown-signer']) {
      replay.queueExchange(fixture(`exchange/${file}.json`));
      outcomes.push(orderOutcome(await venue.sendExchange(SIGNED)));
    }
    assert.deepEqual(outcomes, [
      { kind: 'resting', oid: 77738308 },
      { kind: 'filled', oid: 77747314, totalSz: '0.02', avgPx: '1891.4' },
      { kind: 'refused', message: 'Order must have minimum value of $10.' },
      { kind: 'refused', message: 'Order could not immediately match against any resting orders. asset=0' },
      { kind: 'refused', message: 'User or API Wallet 0x0000000000000000000000000000000000000001 does not exist.' },
    ]);
    assert.equal(isMakerFault('User or API Wallet 0x0000000000000000000000000000000000000001 does not exist.'), true);
    assert.equal(isMakerFault('Order must have minimum value of $10.'), false);
  });

  it('reads cancel answers: success, and "never placed" as success for clean-up', async () => {
    for (const file of ['cancel-success', 'cancel-missing']) {
      replay.queueExchange(fixture(`exchange/${file}.json`));
      assert.equal(cancelSucceeded(await venue.sendExchange(SIGNED)), true, file);
    }
    replay.queueExchange(fixture('exchange/order-error.json'));
    assert.equal(cancelSucceeded(await venue.sendExchange(SIGNED)), false);
  });

  it('reads the omnibus\u2019s ledger rows: the spot transfer out, with its fee; every other row ignored', async () => {
    const http = new VenueHttp(replay.url);
    const rows = await http.info<LedgerUpdate[]>({ type: 'userNonFundingLedgerUpdates', user: USER, startTime: 0 }, 2_000, 4);
    const transfers = rows.map((row) => omnibusTransferOf(row, USER)).filter((t) => t !== null);
    assert.deepEqual(transfers, [
      { kind: 'withdrawal', hash: '0x2ceac78e94d15a1af8660417f418400175003b84f5f2d86615b352360e4d48ac', destination: '0xaaa0c2769cb990f4f37db951a9e48de2385c2733', token: 'USDC', amount: '10.5', fee: '1.0' },
    ]);
    assert.equal(venueUnitsDown('10.5', 6), 10_500_000n);
    assert.equal(venueUnitsUp('1.0', 6), 1_000_000n);
    // Seen from the destination, the same row is a deposit.
    assert.equal(omnibusTransferOf(rows[2]!, '0xaaa0c2769cb990f4f37db951a9e48de2385c2733')?.kind, 'deposit');
    replay.queueExchange(fixture('exchange/order-resting.json'));
    assert.deepEqual(firstStatus(await http.exchange(SIGNED, 2_000)), { resting: { oid: 77738308 } });
  });
});

/** A reply's shape: keys of objects, the first element of arrays, and how each number is written. */
type Shape = string | { [key: string]: Shape } | [Shape] | [];

function shapeOf(value: unknown): Shape {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (value === null) return 'null';
  if (typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]));
  if (typeof value === 'string') {
    if (/^-?\d+\.\d+$/.test(value)) return 'decimal string';
    if (/^-?\d+$/.test(value)) return 'integer string';
    return 'string';
  }
  return typeof value;
}

/**
 * Holds `sim` to `real`: where both carry a key, the value has the same form; keys the recording
 * carries are carried by the simulator too, except `absent` (fields the simulator has no model
 * for); keys only the simulator writes must be in `newer` (fields the venue added after the
 * recording). Leaves that are `null` on one side and a value on the other are both allowed
 * (`cloid: null` against a cloid).
 */
function assertSameForm(sim: unknown, real: unknown, path: string, allow: { absent?: string[]; newer?: string[] } = {}): void {
  const s = shapeOf(sim);
  const r = shapeOf(real);
  const walk = (a: Shape, b: Shape, at: string): void => {
    if (a === 'null' || b === 'null') return;
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length > 0 && b.length > 0) walk(a[0]!, b[0]!, `${at}[0]`);
      return;
    }
    if (typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
      for (const key of Object.keys(b)) {
        if (!(key in a)) assert.ok(allow.absent?.includes(key), `${at}.${key}: the venue writes it, the simulator does not`);
        else walk(a[key]!, b[key]!, `${at}.${key}`);
      }
      for (const key of Object.keys(a)) if (!(key in b)) assert.ok(allow.newer?.includes(key), `${at}.${key}: the simulator writes it, the venue's recording does not`);
      return;
    }
    assert.deepEqual(a, b, `${at}: written as ${JSON.stringify(a)} by the simulator, ${JSON.stringify(b)} by the venue`);
  };
  walk(s, r, path);
}

describe('the simulator\u2019s replies against the venue\u2019s recorded ones', () => {
  let f: SimFixture;
  const maker = newWallet();
  const taker = newWallet();
  const agent = newWallet();
  const takerCloid = cloidOf(7001);
  before(async () => {
    f = await startSim();
    await f.control.fund({ user: maker.address, account: 'perp', token: 'USDC', amount: '100000' });
    await f.control.fund({ user: taker.address, account: 'perp', token: 'USDC', amount: '100000' });
    await f.control.fund({ user: taker.address, account: 'spot', token: 'USDC', amount: '100' });
    await f.exchange(maker).approveAgent({ agentAddress: agent.address, agentName: 'rfq' });
  });
  after(() => f?.sim.stop());

  const info = (body: Record<string, unknown>) => postRaw(f.sim.url, 'info', body);
  const real = (path: string): unknown => JSON.parse(fixture(path));

  it('meta, l2Book, extraAgents and userRole', async () => {
    assertSameForm(await info({ type: 'meta' }), real(INFO.meta), 'meta', { newer: ['marginTables', 'collateralToken', 'marginTableId'] });
    assertSameForm(await info({ type: 'l2Book', coin: 'ETH' }), real(INFO.l2Book), 'l2Book');
    assertSameForm(await info({ type: 'extraAgents', user: maker.address }), real(INFO.extraAgents), 'extraAgents');
    assertSameForm(await info({ type: 'userRole', user: taker.address }), real(INFO.userRole), 'userRole');
  });

  it('order replies, the order look-up, fills and clearinghouseState after a trade at whole numbers', async () => {
    // SOL's book laid out by the test: one maker at 150, so every number of the trade is whole.
    await f.control.book({ coin: 'SOL', enabled: false });
    const rest = await postRaw(f.sim.url, 'exchange', await signedOrder(maker, limit(SOL, false, '150', '1', 'Alo', cloidOf(7000))));
    assertSameForm(rest, real('exchange/order-resting.json'), 'resting', { newer: ['cloid'] });
    const fill = await postRaw(f.sim.url, 'exchange', await signedOrder(taker, limit(SOL, true, '150', '1', 'Ioc', takerCloid)));
    assert.match(JSON.stringify(fill), /"totalSz":"1\.0","avgPx":"150\.0"/);
    assertSameForm(fill, real('exchange/order-filled.json'), 'filled', { newer: ['cloid'] });
    const small = await postRaw(f.sim.url, 'exchange', await signedOrder(taker, limit(SOL, true, '100', '0.05', 'Ioc', cloidOf(7002))));
    assertSameForm(small, real('exchange/order-error.json'), 'error');
    assert.match(JSON.stringify(small), /Order must have minimum value of \$10\. asset=2/);
    assertSameForm(await info({ type: 'orderStatus', user: taker.address, oid: takerCloid }), real(INFO.orderStatus), 'orderStatus');
    assertSameForm(await info({ type: 'userFillsByTime', user: taker.address, startTime: 0 }), real(INFO.userFillsByTime), 'userFillsByTime', {
      newer: ['builderFee', 'cloid', 'feeToken', 'tid', 'twapId'],
    });
    assertSameForm(await info({ type: 'clearinghouseState', user: taker.address }), real(INFO.clearinghouseState), 'clearinghouseState', {
      absent: ['maxTradeSzs'],
      newer: ['crossMaintenanceMarginUsed', 'time', 'maxLeverage', 'cumFunding'],
    });
  });

  it('the ledger row of a spot transfer', async () => {
    await f.exchange(taker).spotSend({ destination: maker.address, token: 'USDC:0x6d1e7cde53ba9467b783cb7c530ce054', amount: '10.5' });
    const rows = (await info({ type: 'userNonFundingLedgerUpdates', user: taker.address, startTime: 0 })) as LedgerUpdate[];
    const recorded = (real(INFO.userNonFundingLedgerUpdates) as LedgerUpdate[]).find((row) => row.delta.type === 'spotTransfer');
    assertSameForm(rows.find((row) => row.delta.type === 'spotTransfer'), recorded, 'ledger');
  });
});

async function signedOrder(wallet: ReturnType<typeof newWallet>, order: ReturnType<typeof limit>) {
  const { signL1Action } = await import('@nktkas/hyperliquid/signing');
  const action = { type: 'order', orders: [order], grouping: 'na' };
  const nonce = Date.now() + Number.parseInt(randomBytes(2).toString('hex'), 16);
  return { action, nonce, signature: (await signL1Action({ wallet, action, nonce })) as { r: Hex; s: Hex; v: 27 | 28 } };
}
