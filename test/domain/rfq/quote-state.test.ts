import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ServiceError } from '../../../src/domain/errors.ts';
import { QUOTE_EVENTS, QUOTE_STATUSES, decideQuote, isOpenQuote, isTerminalQuote, transitionQuote } from '../../../src/domain/rfq/index.ts';
import type { QuoteEvent, QuoteStatus } from '../../../src/domain/rfq/index.ts';
import type { Frame } from '../../../src/domain/frames.ts';

const QUOTE_ID = 'quote-1';
/** The maker's `quoteStatus` (every transition), the taker's `quoteUpdate` (its quote book changes). */
const QS: Frame = { kind: 'quoteStatus', quoteId: QUOTE_ID };
const QU: Frame = { kind: 'quoteUpdate', quoteId: QUOTE_ID };

/**
 * Spec, "States and transitions", Quote: every row (creation has no prior status; a re-submission
 * is `requote`), with the frames it pushes in order: the maker's `quoteStatus` always, then the
 * taker's `quoteUpdate` when its quote book changes outside a selection (a re-price, a quote it
 * may no longer accept). `reposition` is the perp cascade's (DESIGN.md 9.3), not the spec table's.
 */
const ALLOWED: [QuoteStatus, QuoteEvent, QuoteStatus, Frame[], string][] = [
  ['SUBMITTED', 'requote', 'SUBMITTED', [QS, QU], 're-submission for the same RFQ'],
  ['SUBMITTED', 'select', 'SELECTED', [QS], 'selection (accept or deadline), chosen'],
  ['SUBMITTED', 'notSelect', 'NOT_SELECTED', [QS], 'selection, not chosen'],
  ['SUBMITTED', 'expire', 'EXPIRED', [QS], 'window closes, no winner'],
  ['SELECTED', 'settle', 'SETTLED', [QS], 'settlement success'],
  ['SELECTED', 'fail', 'FAILED', [QS], 'settlement does not complete'],
  ['SUBMITTED', 'makerCancel', 'CANCELLED', [QS, QU], 'maker cancel before selection'],
  ['SUBMITTED', 'perpRefused', 'FAILED', [QS, QU], 'perp accept refused'],
  ['SUBMITTED', 'reposition', 'SUBMITTED', [QS], 'perp backup moves in the cascade'],
];

const REFUSAL: Record<QuoteEvent, string> = {
  requote: 'QUOTE_NOT_OPEN',
  makerCancel: 'QUOTE_NOT_OPEN',
  select: 'QUOTE_NOT_ACCEPTABLE',
  notSelect: 'CONFLICT',
  expire: 'CONFLICT',
  perpRefused: 'CONFLICT',
  settle: 'CONFLICT',
  fail: 'CONFLICT',
  reposition: 'CONFLICT',
};

describe('transitionQuote: allowed rows', () => {
  for (const [from, event, to, frames, trigger] of ALLOWED) {
    it(`${from} --${event}--> ${to}, frames ${frames.map((f) => f.kind).join(', ')} (${trigger})`, () => {
      assert.deepEqual(decideQuote({ id: QUOTE_ID, status: from }, event), { status: to, frames });
      assert.equal(transitionQuote(from, event), to);
    });
  }

  it('every event is covered by the table', () => {
    assert.deepEqual(new Set(ALLOWED.map(([, event]) => event)), new Set(QUOTE_EVENTS));
  });
});

describe('transitionQuote: every disallowed (status, event) pair is refused', () => {
  for (const status of QUOTE_STATUSES) {
    for (const event of QUOTE_EVENTS) {
      if (ALLOWED.some(([from, e]) => from === status && e === event)) continue;
      it(`${status} --${event}--> ${REFUSAL[event]}`, () => {
        assert.throws(
          () => transitionQuote(status, event),
          (error: unknown) =>
            error instanceof ServiceError &&
            error.code === REFUSAL[event] &&
            error.details?.['status'] === status &&
            error.details['event'] === event &&
            (event !== 'select' || error.details['reason'] === 'status'),
        );
      });
    }
  }
});

describe('open and terminal quotes', () => {
  it('only SUBMITTED is open (maker cancel answers 409 for selected, settled, expired, cancelled)', () => {
    assert.deepEqual(
      QUOTE_STATUSES.filter((s) => isOpenQuote(s)),
      ['SUBMITTED'],
    );
  });

  it('terminal statuses are exactly those no event leaves', () => {
    for (const status of QUOTE_STATUSES) {
      const leaves = QUOTE_EVENTS.some((event) => {
        try {
          return transitionQuote(status, event) !== status;
        } catch {
          return false;
        }
      });
      assert.equal(isTerminalQuote(status), !leaves, status);
    }
  });

  it('property: any event sequence only walks the spec graph and never leaves a terminal status', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...QUOTE_EVENTS), { maxLength: 20 }), (events) => {
        let status: QuoteStatus = 'SUBMITTED';
        for (const event of events) {
          let next: QuoteStatus;
          try {
            next = transitionQuote(status, event);
          } catch (error) {
            assert.ok(error instanceof ServiceError);
            continue;
          }
          assert.ok(ALLOWED.some(([from, e, to]) => from === status && e === event && to === next));
          assert.ok(!isTerminalQuote(status));
          status = next;
        }
      }),
    );
  });
});
