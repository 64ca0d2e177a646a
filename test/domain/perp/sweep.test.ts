/**
 * A perp SWEEP in the domain (DESIGN.md section 14, "Perp"): the taker's order terms over a
 * selection, the backups, a refused leg's refill, the taker's fill spread over the legs, and the
 * execution's state machine leg by leg.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { afterChecks, afterMakerOrder, afterTakerOrder, afterUnwritable, initialExecution, type ExecutionState, type SweepExecution } from '../../../src/domain/perp/execution.ts';
import { crossesSweepTakerPrice, perpBaseStep, perpSweepTakerTerms, rankSweepBackups, refillSweepLeg, spreadPerpSweepFill, type SweepBackup } from '../../../src/domain/perp/sweep.ts';
import type { SweepQuote, SweepTerms } from '../../../src/domain/rfq/sweep-selection.ts';

const ETH = 10n ** 18n;
const D = { baseDecimals: 18, quoteDecimals: 6, szDecimals: 4 };
/** `size` ETH (in 0.1 steps) at `price` USDC a coin (whole dollars and tenths). */
const quoteOf = (id: string, size: bigint, priceTenths: bigint, receivedAt = 0, allOrNone = true): SweepQuote => ({
  quoteId: id,
  status: 'SUBMITTED',
  makerPays: { token: 'ETH', amount: (size * ETH) / 10n },
  makerReceives: { token: 'USDC', amount: (size * priceTenths * 1_000_000n) / 100n },
  receivedAt,
  acceptableForMs: null,
  allOrNone,
});

describe('perp sweep terms', () => {
  it('the taker order carries the selected size at the worst selected price (BUY the highest, SELL the lowest)', () => {
    const legs = [
      { baseQty: ETH / 10n, quote: quoteOf('a', 1n, 35001n) },
      { baseQty: ETH / 10n, quote: quoteOf('b', 1n, 35003n) },
      { baseQty: ETH / 20n, quote: quoteOf('c', 2n, 35002n) },
    ];
    assert.deepEqual(perpSweepTakerTerms('BUY', legs, D), { s: '0.25', p: '3500.3', problem: null });
    const sell = legs.map((l) => ({ ...l, quote: { makerPays: l.quote.makerReceives, makerReceives: l.quote.makerPays } }));
    assert.deepEqual(perpSweepTakerTerms('SELL', sell, D), { s: '0.25', p: '3500.1', problem: null });
    assert.equal(perpSweepTakerTerms('BUY', [], D).problem, 'the selection is empty');
  });

  it('the size step is one unit of the coin size grid', () => {
    assert.equal(perpBaseStep(D), 10n ** 14n);
    assert.equal(perpBaseStep({ baseDecimals: 2, szDecimals: 4 }), 1n);
  });

  it('backups: unselected conforming quotes the IOC crosses, in sweep rank order', () => {
    const terms: SweepTerms = { side: 'BUY', baseQty: ETH / 5n, minFillQty: ETH / 5n, quoteLimit: 1_000_000_000n, takerFeeTenthBp: 0, instrumentType: 'PERP', baseStep: perpBaseStep(D) };
    const quotes = [quoteOf('sel', 1n, 35001n), quoteOf('late', 1n, 35002n, 9), quoteOf('early', 1n, 35002n, 1, false), quoteOf('dear', 1n, 35003n)];
    const backups = rankSweepBackups(terms, quotes, new Set(['sel']), '3500.2', D, 10);
    assert.deepEqual(backups, [
      { quoteId: 'early', baseQty: (ETH / 10n).toString(), allOrNone: false },
      { quoteId: 'late', baseQty: (ETH / 10n).toString(), allOrNone: true },
    ]);
    assert.equal(crossesSweepTakerPrice('BUY', quoteOf('x', 1n, 35003n), '3500.2', D), false);
    assert.equal(crossesSweepTakerPrice('BUY', quoteOf('x', 1n, 35002n), '3500.2', D), true);
  });

  it('a refill takes whole backups while they fit, cuts the first divisible one, and keeps an all-or-none one too big', () => {
    const b = (id: string, base: bigint, allOrNone: boolean): SweepBackup => ({ quoteId: id, baseQty: base.toString(), allOrNone });
    const refill = refillSweepLeg(7n, [b('big', 9n, true), b('two', 2n, true), b('cut', 9n, false), b('after', 1n, true)], 1n);
    assert.deepEqual(refill.promoted, [{ quoteId: 'two', baseQty: '2', cut: false }, { quoteId: 'cut', baseQty: '5', cut: true }]);
    assert.deepEqual(refill.backups.map((x) => x.quoteId), ['big', 'after']);
    // On a grid of 2: a remainder under one step is left unfilled.
    assert.deepEqual(refillSweepLeg(3n, [b('cut', 9n, false)], 2n).promoted, [{ quoteId: 'cut', baseQty: '2', cut: true }]);
  });

  it('a refill never promotes more than the need, and every backup is promoted or kept once (property)', () => {
    fc.assert(fc.property(
      fc.bigInt({ min: 0n, max: 1000n }),
      fc.array(fc.record({ base: fc.bigInt({ min: 1n, max: 500n }), allOrNone: fc.boolean() }), { maxLength: 8 }),
      fc.bigInt({ min: 1n, max: 7n }),
      (need, raw, step) => {
        const backups = raw.map((r, i) => ({ quoteId: `q${i}`, baseQty: r.base.toString(), allOrNone: r.allOrNone }));
        const { promoted, backups: left } = refillSweepLeg(need, backups, step);
        const total = promoted.reduce((s, p) => s + BigInt(p.baseQty), 0n);
        assert.ok(total <= need);
        assert.deepEqual([...promoted.map((p) => p.quoteId), ...left.map((x) => x.quoteId)].sort(), backups.map((x) => x.quoteId).sort());
        for (const p of promoted) {
          const from = backups.find((x) => x.quoteId === p.quoteId)!;
          if (p.cut) assert.ok(!from.allOrNone && BigInt(p.baseQty) % step === 0n && BigInt(p.baseQty) < BigInt(from.baseQty));
          else assert.equal(p.baseQty, from.baseQty);
        }
      },
    ));
  });

  it('the fill spread: each leg its own maker fill first, the rest in rank order, never past a leg or the taker (property)', () => {
    assert.deepEqual(spreadPerpSweepFill([{ baseQty: 5n, makerFilled: 0n }, { baseQty: 5n, makerFilled: 5n }], 5n), [0n, 5n], 'another maker queued first took nothing');
    assert.deepEqual(spreadPerpSweepFill([{ baseQty: 5n, makerFilled: null }, { baseQty: 5n, makerFilled: 3n }], 7n), [4n, 3n], 'an unread fill gets what the others did not take');
    fc.assert(fc.property(
      fc.array(fc.record({ baseQty: fc.bigInt({ min: 1n, max: 100n }), makerFilled: fc.option(fc.bigInt({ min: 0n, max: 150n }), { nil: null }) }), { minLength: 1, maxLength: 6 }),
      fc.bigInt({ min: 0n, max: 700n }),
      (legs, taker) => {
        const spread = spreadPerpSweepFill(legs, taker);
        const capacity = legs.reduce((s, l) => s + l.baseQty, 0n);
        const sum = spread.reduce((s, x) => s + x, 0n);
        assert.equal(sum, taker < capacity ? taker : capacity);
        spread.forEach((x, i) => assert.ok(x >= 0n && x <= legs[i]!.baseQty));
      },
    ));
  });
});

const leg = (quoteId: string, baseQty: string) => ({ quoteId, baseQty, cut: false, state: 'pending' as const, version: 1, makerPays: baseQty, makerReceives: '1' });
const sweepOf = (legs: ReturnType<typeof leg>[], minFillQty: string): SweepExecution => ({ legs, backups: [], minFillQty, baseStep: '1' });
const passed = (backups: SweepBackup[] = []) => ({ kind: 'passed' as const, approvedFeeTenthBp: 20, rateTenthBp: 20, cascade: backups.map((b) => b.quoteId), backups });
const fill = { filledSize: '0.2', avgPx: '3500', makerFilledSize: null };

function started(minFill = '10', backups: SweepBackup[] = []): ExecutionState {
  return afterChecks(initialExecution('a', sweepOf([leg('a', '10'), leg('b', '10')], minFill)), passed(backups)).state;
}

describe('perp sweep execution', () => {
  it('passing selects every leg at its size, keeps the backups and sends the first leg', () => {
    const backups = [{ quoteId: 'z', baseQty: '10', allOrNone: true }];
    const t = afterChecks(initialExecution('a', sweepOf([leg('a', '10'), leg('b', '10')], '20')), passed(backups));
    assert.deepEqual(t.effects, [{ kind: 'select', quoteId: 'a', cascade: ['z'], legs: [{ quoteId: 'a', baseQty: '10', cut: false }, { quoteId: 'b', baseQty: '10', cut: false }] }]);
    assert.equal(t.state.phase, 'makerSending');
    assert.equal(t.state.currentQuoteId, 'a');
    assert.deepEqual(t.state.sweep?.backups, backups);
  });

  it('a refusal refuses every quote of the sweep; an unwritable check likewise', () => {
    const s = initialExecution('a', sweepOf([leg('a', '10'), leg('b', '10')], '20'));
    const refused = afterChecks(s, { kind: 'refused', reason: 'p' });
    assert.deepEqual(refused.effects.map((e) => e.kind === 'refuseQuote' && e.quoteId), ['a', 'b']);
    assert.deepEqual(afterUnwritable(s, 'x').effects.map((e) => e.kind === 'refuseQuote' && e.quoteId), ['a', 'b']);
  });

  it('the builder fee below the rate: selected, then failed, nothing sent', () => {
    const t = afterChecks(initialExecution('a', sweepOf([leg('a', '10')], '10')), { ...passed(), approvedFeeTenthBp: 10 });
    assert.equal(t.state.phase, 'done');
    assert.deepEqual(t.effects.map((e) => e.kind), ['select', 'failRfq']);
  });

  it('legs go one at a time in rank order, then the taker order; its fill settles the resting legs', () => {
    const first = afterMakerOrder(started(), { kind: 'resting' });
    assert.equal(first.state.phase, 'makerSending');
    assert.equal(first.state.currentQuoteId, 'b');
    assert.deepEqual(first.state.makerOrdersSent, ['a', 'b']);
    const second = afterMakerOrder(first.state, { kind: 'resting' });
    assert.equal(second.state.phase, 'takerSending');
    const done = afterTakerOrder(second.state, { kind: 'filled', fill }, 0, 1000);
    assert.deepEqual(done.effects, [{ kind: 'settleSweep', legs: ['a', 'b'], fill }]);
    assert.equal(done.state.phase, 'cleanup');
  });

  it('a refused leg is counted, FAILED, and refilled from the backups, whose orders go next', () => {
    const backups = [{ quoteId: 'big', baseQty: '30', allOrNone: true }, { quoteId: 'z', baseQty: '30', allOrNone: false }];
    const t = afterMakerOrder(started('20', backups), { kind: 'refused', makerFault: true, reason: 'margin' });
    assert.deepEqual(t.effects, [
      { kind: 'makerFailure', quoteId: 'a', reason: 'margin' },
      { kind: 'failWinner', quoteId: 'a' },
      { kind: 'promote', quoteId: 'z', cascade: ['big'], leg: { quoteId: 'z', baseQty: '10', cut: true } },
    ]);
    assert.equal(t.state.currentQuoteId, 'b');
    assert.deepEqual(t.state.sweep?.legs.map((l) => [l.quoteId, l.state]), [['a', 'failed'], ['b', 'pending'], ['z', 'pending']]);
    const b = afterMakerOrder(t.state, { kind: 'resting' });
    assert.equal(b.state.currentQuoteId, 'z');
    const z = afterMakerOrder(b.state, { kind: 'resting' });
    assert.equal(z.state.phase, 'takerSending');
  });

  it('resting short of minFillQty fails the RFQ without the taker order; reaching it sends it', () => {
    const refused = afterMakerOrder(started('20'), { kind: 'refused', makerFault: false, reason: 'venue down' });
    const short = afterMakerOrder(refused.state, { kind: 'resting' });
    assert.equal(short.state.phase, 'cleanup');
    assert.deepEqual(short.effects.map((e) => e.kind === 'failRfq' && e.code), ['EXECUTION_NOT_FILLED']);
    const enough = afterMakerOrder(afterMakerOrder(started('10'), { kind: 'refused', makerFault: false, reason: 'x' }).state, { kind: 'resting' });
    assert.equal(enough.state.phase, 'takerSending');
  });

  it('an unfilled or unknown taker outcome fails the whole sweep (every leg)', () => {
    const sending = afterMakerOrder(afterMakerOrder(started(), { kind: 'resting' }).state, { kind: 'resting' }).state;
    const t = afterTakerOrder(sending, { kind: 'notFilled', reason: 'no match' }, 0, 1000);
    assert.deepEqual(t.effects.map((e) => e.kind), ['failRfq']);
  });
});
