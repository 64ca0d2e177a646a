import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../../src/domain/errors.ts';
import { RFQ_EVENTS, RFQ_STATUSES, auctionEndEvent, decideRfq, isTerminalRfq, transitionRfq } from '../../../src/domain/rfq/index.ts';
import type { RfqEvent, RfqStatus, TakerLockEffect } from '../../../src/domain/rfq/index.ts';

/**
 * Spec, "States and transitions", RFQ: every row except creation (which has no prior status), with
 * what it does to the taker's lock (spec: "locks released" on FAILED and CANCELLED; the lock is
 * taken for the winner's cost at selection and consumed by settlement).
 */
const ALLOWED: [RfqStatus, RfqEvent, RfqStatus, TakerLockEffect, string][] = [
  ['PENDING', 'accept', 'QUOTED', 'lockWinnerCost', 'taker accept'],
  ['PENDING', 'autoSelect', 'QUOTED', 'lockWinnerCost', 'auction deadline, autoAccept, a conforming quote exists'],
  ['QUOTED', 'settled', 'SETTLED', 'consume', 'settlement completes'],
  ['QUOTED', 'settlementFailed', 'FAILED', 'release', 'settlement does not complete / perp execution fails'],
  ['PENDING', 'auctionEndNoConformingQuote', 'FAILED', 'release', 'auction deadline, autoAccept, no fillable quote'],
  ['PENDING', 'auctionEndNoAccept', 'CANCELLED', 'none', 'auction deadline, taker-driven (no lock while PENDING), no acceptance'],
  ['PENDING', 'takerCancel', 'CANCELLED', 'release', 'taker cancels before auctionEndsAt'],
  ['PENDING', 'perpRefused', 'PENDING', 'none', 'perp accept refused after the 202'],
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
  for (const [from, event, to, takerLock, trigger] of ALLOWED) {
    it(`${from} --${event}--> ${to}, taker lock ${takerLock} (${trigger})`, () => {
      assert.deepEqual(decideRfq(from, event), { status: to, takerLock });
      assert.equal(transitionRfq(from, event), to);
    });
  }

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
          () => decideRfq(status, event),
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
