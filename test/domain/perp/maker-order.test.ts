/** The maker's order and cancel (DESIGN.md 9.2), each defect once, and their signers. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkMakerQuoteOrders, type MakerOrderContext, type MakerSignerContext, type PerpOrderReason } from '../../../src/domain/perp/index.ts';
import { AGENT_KEY, CLOID, COIN, MAKER_KEY, NOW, USDC, agent, maker, sign } from './fixtures.ts';

/** RFQ BUY 0.5 ETH; the maker sells (b false) at 3001, ALO. */
function ctx(overrides: Partial<MakerOrderContext & MakerSignerContext> = {}): MakerOrderContext & MakerSignerContext {
  return {
    side: 'BUY',
    legs: { makerPays: COIN / 2n, makerReceives: 1500n * USDC + USDC / 2n },
    baseDecimals: 8,
    quoteDecimals: 6,
    assetIndex: 1,
    szDecimals: 4,
    now: NOW,
    network: 'testnet',
    account: maker.address,
    agents: [{ address: agent.address, validUntil: NOW + 60_000 }],
    ...overrides,
  };
}

function makerAction(orderOverrides: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'order',
    orders: [{ a: 1, b: false, p: '3001', s: '0.5', r: false, t: { limit: { tif: 'Alo' } }, c: CLOID, ...orderOverrides }],
    grouping: 'na',
    ...overrides,
  };
}

function cancelAction(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'cancelByCloid', cancels: [{ asset: 1, cloid: CLOID, ...overrides }] };
}

async function pair(orderAction = makerAction(), cancel = cancelAction(), options: { key?: `0x${string}`; nonce?: number; cancelNonce?: number } = {}) {
  const key = options.key ?? MAKER_KEY;
  return {
    order: await sign(orderAction, { key, nonce: options.nonce ?? NOW }),
    cancel: await sign(cancel, { key, nonce: options.cancelNonce ?? (options.nonce ?? NOW) + 1 }),
  };
}

async function refused(p: { order: unknown; cancel: unknown }, reason: PerpOrderReason, context = ctx()): Promise<void> {
  const result = await checkMakerQuoteOrders(p.order, p.cancel, context);
  assert.equal(result.ok, false, 'expected a refusal');
  if (!result.ok) assert.ok(result.errors.some((e) => e.reason === reason), `expected ${reason}, got ${JSON.stringify(result.errors)}`);
}

describe('checkMakerQuoteOrders', () => {
  it('passes a conforming order and cancel signed by the maker or its API wallet', async () => {
    const own = await checkMakerQuoteOrders(...Object.values(await pair()) as [unknown, unknown], ctx());
    assert.ok(own.ok, JSON.stringify(own));
    assert.equal(own.orderSigner, maker.address);
    assert.equal(own.cloid, CLOID);
    const viaAgent = await pair(makerAction(), cancelAction(), { key: AGENT_KEY });
    const result = await checkMakerQuoteOrders(viaAgent.order, viaAgent.cancel, ctx());
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.cancelSigner, agent.address);
  });

  it('shape: keys out of order, a builder, reduce-only, vaultAddress', async () => {
    await refused(await pair({ orders: makerAction().orders, type: 'order', grouping: 'na' }), 'shape');
    await refused(await pair(makerAction({}, { builder: { b: '0x00000000000000000000000000000000000000bb', f: 1 } })), 'shape');
    await refused(await pair(makerAction({ r: true })), 'shape');
    const p = await pair();
    await refused({ ...p, order: { ...p.order, vaultAddress: maker.address.toLowerCase() } }, 'shape');
  });
  it('asset', async () => refused(await pair(makerAction({ a: 2 }), cancelAction({ asset: 2 })), 'asset'));
  it('side: the maker takes the opposite side', async () => refused(await pair(makerAction({ b: true })), 'side'));
  it('size: s is not baseQty', async () => refused(await pair(makerAction({ s: '0.25' })), 'size'));
  it('price: not the leg divided by s', async () => refused(await pair(makerAction({ p: '3000' })), 'price'));
  it('price: the leg divided by s is not exact', async () => {
    await refused(await pair(makerAction({ p: '3001' })), 'price', ctx({ legs: { makerPays: COIN / 2n, makerReceives: 1500n * USDC + USDC / 2n + 1n } }));
  });
  it('price: below the venue minimum order value', async () => {
    await refused(await pair(makerAction({ p: '18', s: '0.5' })), 'price', ctx({ legs: { makerPays: COIN / 2n, makerReceives: 9n * USDC } }));
  });
  it('tif: not ALO', async () => refused(await pair(makerAction({ t: { limit: { tif: 'Ioc' } } })), 'tif'));
  it('cloid: c missing', async () => {
    const action = makerAction();
    delete (action.orders as Record<string, unknown>[])[0]!.c;
    await refused(await pair(action), 'cloid');
  });
  it('signer: neither the maker nor its API wallet, or an expired one', async () => {
    await refused(await pair(makerAction(), cancelAction(), { key: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' }), 'signer');
    await refused(await pair(makerAction(), cancelAction(), { key: AGENT_KEY }), 'signer', ctx({ agents: [{ address: agent.address, validUntil: NOW }] }));
  });
  it('signer: signed for the other network, and the refusal names the network it was checked for', async () => {
    const p = await pair();
    const result = await checkMakerQuoteOrders(p.order, p.cancel, ctx({ network: 'mainnet' }));
    assert.equal(result.ok, false);
    const signer = result.ok ? [] : result.errors.filter((e) => e.reason === 'signer');
    assert.equal(signer.length, 2, JSON.stringify(result));
    for (const defect of signer) assert.match(defect.message, /venue network "mainnet"/);
  });
  it("nonce: outside the venue's window", async () => refused(await pair(makerAction(), cancelAction(), { nonce: NOW - 3 * 86_400_000 }), 'nonce'));
  it("nonce: the venue's window is one day, not two", async () => refused(await pair(makerAction(), cancelAction(), { nonce: NOW - 86_400_000 - 1_000 }), 'nonce'));
  it('cancel: another cloid, another asset, a nonce not above the order, another action', async () => {
    await refused(await pair(makerAction(), cancelAction({ cloid: '0xffffffffffffffffffffffffffffffff' })), 'cancel');
    await refused(await pair(makerAction(), cancelAction({ asset: 0 })), 'cancel');
    await refused(await pair(makerAction(), cancelAction(), { cancelNonce: NOW }), 'cancel');
    await refused(await pair(makerAction(), { type: 'cancel', cancels: [{ a: 1, o: 5 }] }), 'cancel');
  });
});
