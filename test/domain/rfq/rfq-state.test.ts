import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../../src/domain/errors.ts';
import { RFQ_EVENTS, RFQ_STATUSES, auctionEndEvent, decideRfq, holdsTakerLock, isTerminalRfq, submitRfq, transitionRfq } from '../../../src/domain/rfq/index.ts';
import type { InstrumentType, RfqEvent, RfqState, RfqStatus, TakerLockEffect } from '../../../src/domain/rfq/index.ts';
import type { Frame } from '../../../src/domain/frames.ts';

const RFQ_ID = 'rfq-1';
const TAKER = 'acct-taker';
const rfq = (status: RfqStatus, kind: { autoAccept?: boolean; instrumentType?: InstrumentType } = {}): RfqState => ({
  id: RFQ_ID,
  status,
  takerAccountId: TAKER,
  autoAccept: kind.autoAccept ?? false,
  instrumentType: kind.instrumentType ?? 'SPOT',
});
const R: Frame = { kind: 'rfqStatus', rfqId: RFQ_ID };
const B: Frame = { kind: 'balances', accountId: TAKER };

/**
 * Spec, "States and transitions", RFQ: every row except creation (tested below, `submitRfq`), with
 * what it does to the taker's lock (spec: "locks released" on FAILED and CANCELLED; the lock is
 * taken for the winner's cost at selection and consumed by settlement) and the frames it pushes
 * on a spot RFQ of the row's kind (spec, "Which operation produces which event": the taker's
 * `rfqStatus` on every status change, then its `balances` when its lock changed). A perp RFQ
 * holds no lock, so it pushes the same frames without the balances (tested below).
 */
const ALLOWED: [RfqStatus, RfqEvent, RfqStatus, TakerLockEffect, { autoAccept: boolean }, Frame[], string][] = [
  ['PENDING', 'accept', 'QUOTED', 'lockWinnerCost', { autoAccept: false }, [R, B], 'taker accept'],
  ['PENDING', 'autoSelect', 'QUOTED', 'lockWinnerCost', { autoAccept: true }, [R, B], 'auction deadline, autoAccept, a conforming quote exists'],
  ['QUOTED', 'settled', 'SETTLED', 'consume', { autoAccept: false }, [R, B], 'settlement completes'],
  ['QUOTED', 'settlementFailed', 'FAILED', 'release', { autoAccept: false }, [R, B], 'settlement does not complete / perp execution fails'],
  ['PENDING', 'auctionEndNoConformingQuote', 'FAILED', 'release', { autoAccept: true }, [R, B], 'auction deadline, autoAccept, no fillable quote'],
  ['PENDING', 'auctionEndNoAccept', 'CANCELLED', 'none', { autoAccept: false }, [R], 'auction deadline, taker-driven (no lock while PENDING), no acceptance'],
  ['PENDING', 'takerCancel', 'CANCELLED', 'release', { autoAccept: true }, [R, B], 'taker cancels before auctionEndsAt (an autoAccept RFQ holds its bound)'],
  ['PENDING', 'perpRefused', 'PENDING', 'none', { autoAccept: false }, [], 'perp accept refused after the 202 (the RFQ stays as it is)'],
];

/** The refusal each event gives on a status it does not apply to. */
const REFUSAL: Record<RfqEvent, string> = {
  accept: 'RFQ_NOT_PENDING',
  autoSelect: 'RFQ_NOT_PENDING',
  auctionEndNoConformingQuote: 'RFQ_NOT_PENDING',
  auctionEndNoAccept: 'RFQ_NOT_PENDING',
  takerCancel: 'RFQ_NOT_PENDING',
  perpRefused: 'RFQ_NOT_PENDING',
  settled: 'CONFLICT',
  settlementFailed: 'CONFLICT',
};

describe('transitionRfq: allowed rows', () => {
  for (const [from, event, to, takerLock, kind, frames, trigger] of ALLOWED) {
    it(`${from} --${event}--> ${to}, taker lock ${takerLock}, frames ${frames.map((f) => f.kind).join(', ') || 'none'} (${trigger})`, () => {
      assert.deepEqual(decideRfq(rfq(from, kind), event), { status: to, takerLock, frames });
      assert.equal(transitionRfq(from, event), to);
    });

    it(`${from} --${event}--> ${to} on a perp RFQ: the same status, no balances (no lock)`, () => {
      const perp = decideRfq(rfq(from, { ...kind, instrumentType: 'PERP' }), event);
      assert.deepEqual(perp, { status: to, takerLock, frames: frames.filter((f) => f.kind !== 'balances') });
    });
  }

  it('a taker cancel of a taker-driven RFQ (no lock while PENDING) pushes no balances', () => {
    assert.deepEqual(decideRfq(rfq('PENDING'), 'takerCancel').frames, [R]);
  });

  it('every event is covered by the table', () => {
    assert.deepEqual(new Set(ALLOWED.map(([, event]) => event)), new Set(RFQ_EVENTS));
  });
});

describe('transitionRfq: every disallowed (status, event) pair is refused', () => {
  for (const status of RFQ_STATUSES) {
    for (const event of RFQ_EVENTS) {
      if (ALLOWED.some(([from, e]) => from === status && e === event)) continue;
      it(`${status} --${event}--> ${REFUSAL[event]}`, () => {
        assert.throws(
          () => decideRfq(rfq(status), event),
          (error: unknown) =>
            error instanceof ServiceError &&
            error.code === REFUSAL[event] &&
            error.details?.['status'] === status &&
            error.details['event'] === event,
        );
      });
    }
  }
});

describe('terminal statuses', () => {
  it('SETTLED, FAILED and CANCELLED are terminal; PENDING and QUOTED are not', () => {
    assert.deepEqual(
      RFQ_STATUSES.filter((s) => isTerminalRfq(s)),
      ['SETTLED', 'FAILED', 'CANCELLED'],
    );
  });

  it('no event leaves a terminal status', () => {
    for (const status of RFQ_STATUSES.filter((s) => isTerminalRfq(s))) {
      for (const event of RFQ_EVENTS) assert.throws(() => transitionRfq(status, event), ServiceError);
    }
  });
});

describe('auctionEndEvent', () => {
  it('maps the mode and the selection outcome to the spec row', () => {
    assert.equal(auctionEndEvent(true, true), 'autoSelect');
    assert.equal(auctionEndEvent(true, false), 'auctionEndNoConformingQuote');
    assert.equal(auctionEndEvent(false, true), 'auctionEndNoAccept');
    assert.equal(auctionEndEvent(false, false), 'auctionEndNoAccept');
  });

  it('autoAccept with a quote ends QUOTED, without one FAILED; taker-driven ends CANCELLED', () => {
    assert.equal(transitionRfq('PENDING', auctionEndEvent(true, true)), 'QUOTED');
    assert.equal(transitionRfq('PENDING', auctionEndEvent(true, false)), 'FAILED');
    assert.equal(transitionRfq('PENDING', auctionEndEvent(false, true)), 'CANCELLED');
  });
});

describe('submitRfq and holdsTakerLock', () => {
  it('a new RFQ pushes the rfqStatus to its taker and the open RFQ to makers; an autoAccept spot one its locked balances first', () => {
    const open: Frame = { kind: 'openRfq', rfqId: RFQ_ID };
    const { status: _s, ...taker } = rfq('PENDING');
    assert.deepEqual(submitRfq(taker), { status: 'PENDING', frames: [R, open] });
    assert.deepEqual(submitRfq({ ...taker, autoAccept: true }).frames, [B, R, open]);
  });

  it('a spot taker holds a lock while QUOTED, and while PENDING only on autoAccept; a perp taker never', () => {
    const held = (status: RfqStatus, autoAccept: boolean, instrumentType: InstrumentType) => holdsTakerLock({ status, autoAccept, instrumentType });
    assert.deepEqual(RFQ_STATUSES.filter((s) => held(s, false, 'SPOT')), ['QUOTED']);
    assert.deepEqual(RFQ_STATUSES.filter((s) => held(s, true, 'SPOT')), ['PENDING', 'QUOTED']);
    assert.deepEqual(RFQ_STATUSES.filter((s) => held(s, true, 'PERP')), []);
  });
});
