/**
 * The taker's order against spec rules 1-14, each broken once, and the signer recovery's
 * sensitivity to everything the venue hashes (fast-check properties).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkTakerOrder, isAuthorisedSigner, recoverL1Signer, type PerpOrderReason } from '../../../src/domain/perp/index.ts';
import { BUILDER, CLOID, COIN, NOW, agent, buyContext, maker, sign, taker, takerAction } from './fixtures.ts';

function reasons(result: ReturnType<typeof checkTakerOrder>): PerpOrderReason[] {
  return result.ok ? [] : result.errors.map((e) => e.reason);
}

function refusedWith(result: ReturnType<typeof checkTakerOrder>, reason: PerpOrderReason, field?: string): void {
  assert.equal(result.ok, false, 'expected a refusal');
  if (result.ok) return;
  assert.ok(
    result.errors.some((e) => e.reason === reason && (field === undefined || e.field === field)),
    `expected ${reason}${field ? ` at ${field}` : ''}, got ${JSON.stringify(result.errors)}`,
  );
}

describe('checkTakerOrder: a conforming order', () => {
  it('passes and recovers the taker on the right network', async () => {
    const signed = await sign(takerAction());
    const result = checkTakerOrder(signed, buyContext());
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.cloid, CLOID);
    assert.equal(await recoverL1Signer(result.order.signed, 'testnet'), taker.address);
  });

  it('passes a SELL without c or builder', async () => {
    // SELL 0.3 for 999.99 USDC: p = 3333.3 exactly.
    const ctx = buyContext({ side: 'SELL', legs: { makerPays: 999_990_000n, makerReceives: (COIN * 3n) / 10n }, builder: null });
    const action = takerAction({}, { b: false, p: '3333.3', s: '0.3' });
    delete action.builder;
    delete (action.orders as Record<string, unknown>[])[0]!.c;
    const result = checkTakerOrder(await sign(action), ctx);
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.cloid, null);
  });

  it('rule 7: p is truncated, and p * s must land within one micro-unit of the leg', async () => {
    // BTC-like coin, szDecimals 5 (price decimals 1): 0.00003 for 3.000001 USDC -> 100000.03.. -> 100000.
    const btc = (makerReceives: bigint) => buyContext({ szDecimals: 5, legs: { makerPays: (COIN * 3n) / 100_000n, makerReceives } });
    const action = takerAction({}, { p: '100000', s: '0.00003' });
    assert.ok(checkTakerOrder(await sign(action), btc(3_000_001n)).ok, 'one micro-unit off is accepted');
    refusedWith(checkTakerOrder(await sign(action), btc(3_000_002n)), 'price');
    refusedWith(checkTakerOrder(await sign(takerAction({}, { p: '100000.1', s: '0.00003' })), btc(3_000_001n)), 'price');
  });

  it('rule 7: a leg that gives a price off the venue grid cannot be traded', async () => {
    // 999.999 / 0.3 = 3333.33: six significant figures.
    const ctx = buyContext({ side: 'SELL', legs: { makerPays: 999_999_000n, makerReceives: (COIN * 3n) / 10n } });
    const result = checkTakerOrder(await sign(takerAction({}, { b: false, p: '3333.33', s: '0.3' })), ctx);
    refusedWith(result, 'price');
    assert.match(result.ok ? '' : result.errors[0]!.message, /price grid/);
  });
});

describe('checkTakerOrder: each rule broken once is refused', () => {
  const cases: [string, () => Promise<unknown>, PerpOrderReason, string?][] = [
    ['rule 1: action keys out of order', () => sign({ orders: takerAction().orders, type: 'order', grouping: 'na', builder: { b: BUILDER, f: 20 } }), 'shape', 'perpTakerOrder.action'],
    [
      'rule 1: order keys out of order',
      () => sign({ ...takerAction(), orders: [{ b: true, a: 1, p: '3001', s: '0.5', r: false, t: { limit: { tif: 'Ioc' } }, c: CLOID }] }),
      'shape',
      'perpTakerOrder.action.orders[0]',
    ],
    ['rule 1: builder keys out of order', () => sign(takerAction({ builder: { f: 20, b: BUILDER } })), 'shape', 'perpTakerOrder.action.builder'],
    ['rule 2: type is not order', () => sign(takerAction({ type: 'twapOrder' })), 'shape', 'perpTakerOrder.action.type'],
    ['rule 2: two orders', () => sign(takerAction({ orders: [(takerAction().orders as unknown[])[0], (takerAction().orders as unknown[])[0]] })), 'shape', 'perpTakerOrder.action.orders'],
    ['rule 2: grouping is not na', () => sign(takerAction({ grouping: 'normalTpsl' })), 'shape', 'perpTakerOrder.action.grouping'],
    ['rule 3: vaultAddress', async () => ({ ...(await sign(takerAction(), { vaultAddress: '0x00000000000000000000000000000000000000aa' })), vaultAddress: '0x00000000000000000000000000000000000000aa' }), 'shape', 'perpTakerOrder.vaultAddress'],
    ['rule 3: expiresAfter', async () => ({ ...(await sign(takerAction(), { expiresAfter: NOW + 60_000 })), expiresAfter: NOW + 60_000 }), 'shape', 'perpTakerOrder.expiresAfter'],
    ['rule 4: wrong asset index', () => sign(takerAction({}, { a: 0 })), 'asset'],
    ['rule 4: asset index as a string', () => sign(takerAction({}, { a: '1' })), 'asset'],
    ['rule 5: b false on a BUY', () => sign(takerAction({}, { b: false })), 'side'],
    ['rule 6: s not the base leg', () => sign(takerAction({}, { s: '0.4' })), 'size'],
    ['rule 6: s as a number', () => sign(takerAction({}, { s: 0.5 })), 'size'],
    ['rule 7: p not derived from the leg', () => sign(takerAction({}, { p: '3000' })), 'price'],
    ['rule 7: p derived from a fee-inclusive total', () => sign(takerAction({}, { p: '3007' })), 'price'],
    ['rule 8: trailing zero in p', () => sign(takerAction({}, { p: '3001.0' })), 'price'],
    ['rule 8: trailing zero in s', () => sign(takerAction({}, { s: '0.50' })), 'size'],
    ['rule 8: exponent in p', () => sign(takerAction({}, { p: '3.001e3' })), 'price'],
    ['rule 9: tif Gtc', () => sign(takerAction({}, { t: { limit: { tif: 'Gtc' } } })), 'tif'],
    ['rule 9: a trigger order', () => sign(takerAction({}, { t: { trigger: { isMarket: true, triggerPx: '3001', tpsl: 'tp' } } })), 'tif'],
    ['rule 9: r not a boolean', () => sign(takerAction({}, { r: 'false' })), 'shape'],
    ['rule 10: c upper case', () => sign(takerAction({}, { c: CLOID.toUpperCase().replace('0X', '0x') })), 'cloid'],
    ['rule 10: c too short', () => sign(takerAction({}, { c: '0x0123' })), 'cloid'],
    ['rule 11: builder missing', () => sign(takerAction({ builder: undefined })).then((s) => ({ ...s, action: omit(s.action, 'builder') })), 'builder'],
    ['rule 11: builder address checksummed', () => sign(takerAction({ builder: { b: '0x00000000000000000000000000000000000000BB', f: 20 } })), 'builder'],
    ['rule 11: builder fee differs', () => sign(takerAction({ builder: { b: BUILDER, f: 10 } })), 'builder'],
    ['rule 12: nonce not an integer', async () => ({ ...(await sign(takerAction())), nonce: NOW + 0.5 }), 'nonce'],
    ['rule 12: nonce three days old', () => sign(takerAction(), { nonce: NOW - 3 * 24 * 3600 * 1000 }), 'nonce'],
    ['rule 13: v is not 27 or 28', async () => { const s = await sign(takerAction()); return { ...s, signature: { ...s.signature, v: 29 } }; }, 'shape', 'perpTakerOrder.signature.v'],
    ['rule 13: r longer than 32 bytes', async () => { const s = await sign(takerAction()); return { ...s, signature: { ...s.signature, r: `0x01${s.signature.r.slice(2)}` } }; }, 'shape', 'perpTakerOrder.signature.r'],
    ['rule 13: r not hex', async () => { const s = await sign(takerAction()); return { ...s, signature: { ...s.signature, r: `0x${'g'.repeat(64)}` } }; }, 'shape', 'perpTakerOrder.signature.r'],
  ];
  for (const [name, build, reason, field] of cases) {
    it(name, async () => refusedWith(checkTakerOrder(await build(), buyContext()), reason, field));
  }

  it('rule 11: a builder key on a quote without builderFeeTenthBp', async () => {
    refusedWith(checkTakerOrder(await sign(takerAction()), buyContext({ builder: null })), 'builder', 'perpTakerOrder.action.builder');
  });

  it('not an object at all', () => {
    refusedWith(checkTakerOrder('order', buyContext()), 'shape', 'perpTakerOrder');
    refusedWith(checkTakerOrder({ action: [], nonce: NOW, signature: {} }, buyContext()), 'shape');
  });

  it('reports one entry per defect', async () => {
    const result = checkTakerOrder(await sign(takerAction({}, { a: 0, b: false, p: '1' })), buyContext());
    assert.deepEqual(reasons(result).sort(), ['asset', 'price', 'side']);
  });

  it('rule 13: a tampered signature recovers someone else', async () => {
    const signed = await sign(takerAction());
    const flipped = { ...signed, signature: { ...signed.signature, v: (signed.signature.v === 27 ? 28 : 27) as 27 | 28 } };
    assert.notEqual(await recoverL1Signer(flipped, 'testnet').catch(() => null), taker.address);
  });

  it('rule 14: the wrong network recovers someone else', async () => {
    const signed = await sign(takerAction(), { network: 'mainnet' });
    assert.equal(await recoverL1Signer(signed, 'mainnet'), taker.address);
    assert.notEqual(await recoverL1Signer(signed, 'testnet'), taker.address);
  });

  it('rule 14: the account or an unexpired API wallet of it, nobody else', () => {
    const agents = [{ address: agent.address, validUntil: NOW + 1 }];
    assert.equal(isAuthorisedSigner(taker.address, taker.address, [], NOW), true);
    assert.equal(isAuthorisedSigner(agent.address, taker.address, agents, NOW), true);
    assert.equal(isAuthorisedSigner(agent.address, taker.address, [{ address: agent.address, validUntil: NOW }], NOW), false);
    assert.equal(isAuthorisedSigner(agent.address, taker.address, [{ address: agent.address, validUntil: null }], NOW), true);
    assert.equal(isAuthorisedSigner(maker.address, taker.address, agents, NOW), false);
  });
});

function omit(object: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...object };
  delete copy[key];
  return copy;
}

function permute<T>(items: readonly T[], order: readonly number[]): T[] {
  return order.map((i) => items[i]!);
}

function reorder(object: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, object[k]]));
}

describe('signer recovery is bound to what was signed (properties)', () => {
  const RUNS = 25;
  const orderKeys = ['a', 'b', 'p', 's', 'r', 't', 'c'];
  const actionKeys = ['type', 'orders', 'grouping', 'builder'];
  const nonIdentity = (n: number) => fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }).filter((o) => o.some((v, i) => v !== i));

  it('any change of key order is refused and recovers a different signer', async () => {
    const signed = await sign(takerAction());
    await fc.assert(
      fc.asyncProperty(nonIdentity(actionKeys.length), nonIdentity(orderKeys.length), fc.boolean(), async (actionOrder, orderOrder, inOrder) => {
        const base = signed.action as Record<string, unknown>;
        const action = inOrder
          ? { ...base, orders: [reorder((base.orders as Record<string, unknown>[])[0]!, permute(orderKeys, orderOrder))] }
          : reorder(base, permute(actionKeys, actionOrder));
        const tampered = { ...signed, action };
        assert.equal(checkTakerOrder(tampered, buyContext()).ok, false);
        assert.notEqual(await recoverL1Signer(tampered, 'testnet'), taker.address);
      }),
      { numRuns: RUNS },
    );
  });

  it('a literal trailing zero on p or s is refused and recovers a different signer', async () => {
    const signed = await sign(takerAction());
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('p', 's'), fc.integer({ min: 1, max: 4 }), async (key, zeros) => {
        const order = (signed.action.orders as Record<string, unknown>[])[0]!;
        const value = String(order[key]);
        const padded = (value.includes('.') ? value : `${value}.`) + '0'.repeat(zeros);
        const tampered = { ...signed, action: { ...signed.action, orders: [{ ...order, [key]: padded }] } };
        assert.equal(checkTakerOrder(tampered, buyContext()).ok, false);
        assert.notEqual(await recoverL1Signer(tampered, 'testnet'), taker.address);
      }),
      { numRuns: RUNS },
    );
  });

  it('an order signed with expiresAfter or vaultAddress is refused with it and recovers a different signer without it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: NOW, max: NOW + 86_400_000 }).map((expiresAfter) => ({ expiresAfter })),
          fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => ({ vaultAddress: `0x${Buffer.from(bytes).toString('hex')}` as `0x${string}` })),
        ),
        async (extra) => {
          const signed = await sign(takerAction(), extra);
          assert.equal(checkTakerOrder({ ...signed, ...extra }, buyContext()).ok, false);
          assert.ok(checkTakerOrder(signed, buyContext()).ok, 'the bare envelope passes the shape checks');
          assert.notEqual(await recoverL1Signer(signed, 'testnet'), taker.address);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('the wrong network or another nonce recovers a different signer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('mainnet', 'testnet') as fc.Arbitrary<'mainnet' | 'testnet'>, fc.integer({ min: 1, max: 10_000_000 }), async (network, delta) => {
        const signed = await sign(takerAction(), { network });
        const other = network === 'mainnet' ? 'testnet' : 'mainnet';
        assert.equal(await recoverL1Signer(signed, network), taker.address);
        assert.notEqual(await recoverL1Signer(signed, other), taker.address);
        assert.notEqual(await recoverL1Signer({ ...signed, nonce: signed.nonce + delta }, network), taker.address);
      }),
      { numRuns: RUNS },
    );
  });
});
