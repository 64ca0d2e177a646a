import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  afterChecks,
  afterCleanup,
  afterLostTakerSend,
  afterMakerOrder,
  afterTakerOrder,
  afterUnwritable,
  initialExecution,
  isTerminalExecution,
  type ExecutionState,
} from '../../../src/domain/perp/execution.ts';
import { cancelSucceeded, httpRefusal, isDuplicateNonce, isMakerFault, isUnknownOid, lookedUpOrder, nonceExpired, orderOutcome } from '../../../src/domain/perp/order-outcome.ts';
import { summariseFills } from '../../../src/domain/perp/fills.ts';

const T0 = 1_700_000_000_000;
const WINDOW = 30_000;
const fill = { filledSize: '0.1', avgPx: '3500', makerFilledSize: '0.1' };

function selected(cascade: string[] = []): ExecutionState {
  return afterChecks(initialExecution('q1'), { kind: 'passed', approvedFeeTenthBp: 10, rateTenthBp: 10, cascade }).state;
}

describe('perp execution: checks (steps 1-3)', () => {
  it('a reused nonce changes nothing and records nothing against anyone', () => {
    const t = afterChecks(initialExecution('q1'), { kind: 'nonceReused' });
    assert.equal(t.state.phase, 'ignored');
    assert.deepEqual(t.effects, []);
    assert.ok(isTerminalExecution(t.state.phase));
  });

  it('a failed check refuses the accepted quote and nothing else', () => {
    const t = afterChecks(initialExecution('q1'), { kind: 'refused', reason: 'signer' });
    assert.equal(t.state.phase, 'refused');
    assert.deepEqual(t.effects, [{ kind: 'refuseQuote', quoteId: 'q1', reason: 'signer' }]);
  });

  it('passing selects with the cascade and sends the maker order first', () => {
    const t = afterChecks(initialExecution('q1'), { kind: 'passed', approvedFeeTenthBp: 20, rateTenthBp: 10, cascade: ['q2', 'q3'] });
    assert.equal(t.state.phase, 'makerSending');
    assert.deepEqual(t.state.makerOrdersSent, ['q1']);
    assert.deepEqual(t.effects, [{ kind: 'select', quoteId: 'q1', cascade: ['q2', 'q3'] }]);
  });

  it('an approval below the rate selects, then fails SETTLEMENT_FAILED with nothing sent', () => {
    for (const approved of [null, 0, 9]) {
      const t = afterChecks(initialExecution('q1'), { kind: 'passed', approvedFeeTenthBp: approved, rateTenthBp: 10, cascade: ['q2'] });
      assert.equal(t.state.phase, 'done');
      assert.deepEqual(t.state.makerOrdersSent, []);
      assert.deepEqual(
        t.effects.map((e) => e.kind + (e.kind === 'failRfq' ? `:${e.code}` : '')),
        ['select', 'failRfq:SETTLEMENT_FAILED'],
      );
    }
  });

  it('no builder fee on the quote needs no approval', () => {
    const t = afterChecks(initialExecution('q1'), { kind: 'passed', approvedFeeTenthBp: null, rateTenthBp: 0, cascade: [] });
    assert.equal(t.state.phase, 'makerSending');
  });
});

describe('perp execution: maker order and cascade (step 4)', () => {
  it('resting moves to the taker order', () => {
    assert.equal(afterMakerOrder(selected(), { kind: 'resting' }).state.phase, 'takerSending');
  });

  it("a maker's refusal counts against it and promotes the first backup, renumbering the rest", () => {
    const t = afterMakerOrder(selected(['q2', 'q3']), { kind: 'refused', makerFault: true, reason: 'margin' });
    assert.equal(t.state.phase, 'makerSending');
    assert.equal(t.state.currentQuoteId, 'q2');
    assert.deepEqual(t.state.cascade, ['q3']);
    assert.deepEqual(t.state.makerOrdersSent, ['q1', 'q2']);
    assert.deepEqual(t.effects, [
      { kind: 'makerFailure', quoteId: 'q1', reason: 'margin' },
      { kind: 'failWinner', quoteId: 'q1' },
      { kind: 'promote', quoteId: 'q2', cascade: ['q3'] },
    ]);
  });

  it('a refusal not of the maker\'s doing is not counted', () => {
    const t = afterMakerOrder(selected(['q2']), { kind: 'refused', makerFault: false, reason: 'venue down' });
    assert.ok(!t.effects.some((e) => e.kind === 'makerFailure'));
  });

  it('the cascade exhausted ends EXECUTION_NOT_FILLED and never reaches the taker order', () => {
    let state = selected(['q2']);
    state = afterMakerOrder(state, { kind: 'refused', makerFault: true, reason: 'nonce' }).state;
    const t = afterMakerOrder(state, { kind: 'refused', makerFault: true, reason: 'would cross' });
    assert.equal(t.state.phase, 'cleanup');
    assert.deepEqual(t.effects.at(-1), { kind: 'failRfq', quoteId: 'q2', code: 'EXECUTION_NOT_FILLED', reason: 'maker order not placed: would cross' });
    assert.throws(() => afterTakerOrder(t.state, { kind: 'filled', fill }, T0, WINDOW), RangeError);
  });
});

describe('perp execution: taker order and outcome (steps 5-7)', () => {
  const sending = afterMakerOrder(selected(['q2']), { kind: 'resting' }).state;

  it('filled settles the winner (partial fills too)', () => {
    const t = afterTakerOrder(sending, { kind: 'filled', fill: { ...fill, filledSize: '0.05' } }, T0, WINDOW);
    assert.equal(t.state.phase, 'cleanup');
    assert.deepEqual(t.effects, [{ kind: 'settle', quoteId: 'q1', fill: { ...fill, filledSize: '0.05' } }]);
  });

  it('not filled and builder-fee refusals end with their codes', () => {
    assert.deepEqual(afterTakerOrder(sending, { kind: 'notFilled', reason: 'ioc' }, T0, WINDOW).effects[0], { kind: 'failRfq', quoteId: 'q1', code: 'EXECUTION_NOT_FILLED', reason: 'ioc' });
    assert.equal((afterTakerOrder(sending, { kind: 'builderFeeNotApproved', reason: 'b' }, T0, WINDOW).effects[0] as { code: string }).code, 'SETTLEMENT_FAILED');
  });

  it('unclear resolves within the window, then ends EXECUTION_UNCONFIRMED', () => {
    const first = afterTakerOrder(sending, { kind: 'unclear', reason: 'timeout' }, T0, WINDOW);
    assert.equal(first.state.phase, 'resolving');
    assert.equal(first.state.resolveBy, T0 + WINDOW);
    assert.deepEqual(first.effects, []);
    const still = afterTakerOrder(first.state, { kind: 'unclear', reason: 'unknownOid' }, T0 + WINDOW - 1, WINDOW);
    assert.equal(still.state.phase, 'resolving');
    assert.equal(still.state.resolveBy, T0 + WINDOW, 'the window does not slide');
    const resolved = afterTakerOrder(first.state, { kind: 'filled', fill }, T0 + 5, WINDOW);
    assert.equal(resolved.effects[0]?.kind, 'settle');
    const lapsed = afterTakerOrder(first.state, { kind: 'unclear', reason: 'unknownOid' }, T0 + WINDOW, WINDOW);
    assert.equal(lapsed.state.phase, 'cleanup');
    assert.equal((lapsed.effects[0] as { code: string }).code, 'EXECUTION_UNCONFIRMED');
  });

  it('a send lost in a crash is resolved, never sent again', () => {
    const t = afterLostTakerSend(sending, T0, WINDOW);
    assert.equal(t.state.phase, 'resolving');
    assert.throws(() => afterLostTakerSend(t.state, T0, WINDOW), RangeError);
  });

  it('clean-up ends the execution', () => {
    const ended = afterTakerOrder(sending, { kind: 'filled', fill }, T0, WINDOW).state;
    assert.equal(afterCleanup(ended).state.phase, 'done');
    assert.deepEqual(ended.makerOrdersSent, ['q1']);
  });
});

describe('perp execution: a write the store refuses for good', () => {
  const why = 'not stored';
  it('ends from every live phase, never retried: refused before the checks pass, FAILED once the RFQ is QUOTED', () => {
    const checking = afterUnwritable(initialExecution('q1'), why);
    assert.equal(checking.state.phase, 'refused');
    assert.deepEqual(checking.effects, [{ kind: 'refuseQuote', quoteId: 'q1', reason: why }]);
    const maker = afterUnwritable(selected(['q2']), why);
    assert.equal(maker.state.phase, 'cleanup', 'the maker order sent gets its cancel');
    assert.deepEqual(maker.state.cascade, []);
    assert.deepEqual(maker.effects, [{ kind: 'failRfq', quoteId: 'q1', code: 'SETTLEMENT_FAILED', reason: why }]);
    const sending = afterMakerOrder(selected(), { kind: 'resting' }).state;
    assert.deepEqual(afterUnwritable(sending, why).effects, [{ kind: 'failRfq', quoteId: 'q1', code: 'EXECUTION_UNCONFIRMED', reason: why }], 'the taker order may have gone');
    const resolving = afterTakerOrder(sending, { kind: 'unclear', reason: 'timeout' }, T0, WINDOW).state;
    assert.equal(afterUnwritable(resolving, why).effects[0]?.kind, 'failRfq');
    const cleanup = afterTakerOrder(sending, { kind: 'filled', fill }, T0, WINDOW).state;
    assert.deepEqual(afterUnwritable(cleanup, why), { state: { ...cleanup, phase: 'done' }, effects: [] }, 'the outcome is already committed');
    assert.throws(() => afterUnwritable({ ...cleanup, phase: 'done' }, why), RangeError);
  });
});

describe('venue replies', () => {
  const ok = (status: unknown) => ({ status: 'ok', response: { type: 'order', data: { statuses: [status] } } });

  it('classifies order replies', () => {
    assert.deepEqual(orderOutcome(ok({ resting: { oid: 7 } })), { kind: 'resting', oid: 7 });
    assert.deepEqual(orderOutcome(ok({ filled: { totalSz: '0.1', avgPx: '3500.5', oid: 8 } })), { kind: 'filled', oid: 8, totalSz: '0.1', avgPx: '3500.5' });
    assert.deepEqual(orderOutcome(ok({ error: 'Insufficient margin to place order.' })), { kind: 'refused', message: 'Insufficient margin to place order.' });
    assert.deepEqual(orderOutcome({ status: 'err', response: 'Invalid nonce: duplicate nonce' }), { kind: 'refused', message: 'Invalid nonce: duplicate nonce' });
    assert.equal(orderOutcome(undefined).kind, 'unclear');
    assert.equal(orderOutcome({ status: 'ok', response: { type: 'order', data: { statuses: [] } } }).kind, 'unclear');
  });

  it("tells the maker's faults from the venue's", () => {
    assert.ok(isMakerFault('Post only order would have immediately matched, bbo was 1. asset=1'));
    assert.ok(isMakerFault('Insufficient margin to place order. asset=1'));
    assert.ok(isMakerFault('Invalid nonce: duplicate nonce'));
    assert.ok(isMakerFault('User or API Wallet 0xabc does not exist.'));
    assert.ok(!isMakerFault('Order must have minimum value of $10.'));
    assert.ok(!isMakerFault('502 Bad Gateway'));
  });

  it('treats "never placed" as a successful cancel', () => {
    const cancel = (status: unknown) => ({ status: 'ok', response: { type: 'cancel', data: { statuses: [status] } } });
    assert.ok(cancelSucceeded(cancel('success')));
    assert.ok(cancelSucceeded(cancel({ error: 'Order was never placed, already canceled, or filled. asset=1' })));
    assert.ok(!cancelSucceeded(cancel({ error: 'Invalid nonce' })));
    assert.ok(!cancelSucceeded({ status: 'err', response: 'x' }));
  });

  it('reads orderStatus look-ups', () => {
    assert.deepEqual(lookedUpOrder({ status: 'unknownOid' }), { kind: 'unknown' });
    assert.deepEqual(lookedUpOrder({ status: 'order', order: { order: {}, status: 'open' } }), { kind: 'open' });
    assert.deepEqual(lookedUpOrder({ status: 'order', order: { order: {}, status: 'filled' } }), { kind: 'ended', status: 'filled', filled: true });
    // An IOC's remainder cancelled: filled in part by its own record (remaining size below the original), or not at all.
    assert.deepEqual(lookedUpOrder({ status: 'order', order: { order: { origSz: '0.1', sz: '0.04' }, status: 'canceled' } }), { kind: 'ended', status: 'canceled', filled: true });
    assert.deepEqual(lookedUpOrder({ status: 'order', order: { order: { origSz: '0.1', sz: '0.1' }, status: 'canceled' } }), { kind: 'ended', status: 'canceled', filled: false });
    assert.deepEqual(lookedUpOrder({ status: 'order', order: { order: { origSz: 'x', sz: '0.1' }, status: 'rejected' } }), { kind: 'ended', status: 'rejected', filled: false });
  });

  it('sums fills exactly', () => {
    assert.equal(summariseFills([]), null);
    assert.deepEqual(summariseFills([{ sz: '0.1', px: '3500' }, { sz: '0.3', px: '3501' }]), { filledSize: '0.4', avgPx: '3500.75' });
    assert.deepEqual(summariseFills([{ sz: '0.0003', px: '100001' }]), { filledSize: '0.0003', avgPx: '100001' });
  });
});

describe('venue outcomes (DESIGN.md 13)', () => {
  it('HTTP 422 and 429 are whole-request refusals, read as refused', () => {
    assert.deepEqual(orderOutcome(httpRefusal(429, 'Too many requests')), { kind: 'refused', message: 'HTTP 429: Too many requests' });
  });
  it('a duplicate nonce is told apart; unknownOid is the venue not knowing the order', () => {
    assert.ok(isDuplicateNonce('Invalid nonce: duplicate nonce'));
    assert.ok(!isDuplicateNonce('Invalid nonce: nonce too low'));
    assert.ok(isUnknownOid({ status: 'unknownOid' }));
    assert.ok(!isUnknownOid({ status: 'order', order: {} }));
  });
  it('a pre-signed action expires a day after its nonce, by the venue\u2019s rule', () => {
    const now = 1_800_000_000_000;
    assert.ok(!nonceExpired(now - 86_400_000 + 1, now));
    assert.ok(nonceExpired(now - 86_400_000, now));
  });
});
