/**
 * The `/v0` order machine, table-driven over the spec's order statuses (v0, "Order status
 * values"): every (status, event) pair is either a row here or refused with CONFLICT.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../../src/domain/errors.ts';
import {
  V0_ORDER_EVENTS,
  V0_ORDER_STATUSES,
  cancellable,
  decideV0Order,
  finishEvent,
  isTerminal,
  type V0OrderEvent,
  type V0OrderLockEffect,
  type V0OrderStatus,
} from '../../../src/domain/v0/order-status.ts';

const ALLOWED: Array<[V0OrderStatus, V0OrderEvent, V0OrderStatus, V0OrderLockEffect]> = [
  ['pending', 'rest', 'open', 'keep'],
  ['pending', 'refuse', 'failed', 'release'],
  ['open', 'refuse', 'failed', 'release'],
  ['pending', 'fillCompletely', 'filled', 'release'],
  ['open', 'fillCompletely', 'filled', 'release'],
  ['pending', 'cancel', 'cancelled', 'release'],
  ['open', 'cancel', 'cancelled', 'release'],
  ['pending', 'endPartlyFilled', 'partially_filled', 'release'],
  ['open', 'endPartlyFilled', 'partially_filled', 'release'],
  ['pending', 'expire', 'expired', 'release'],
  ['open', 'expire', 'expired', 'release'],
];

describe('/v0 order state machine', () => {
  it('knows exactly the spec\'s seven statuses', () => {
    assert.deepEqual([...V0_ORDER_STATUSES].sort(), ['cancelled', 'expired', 'failed', 'filled', 'open', 'partially_filled', 'pending']);
  });

  for (const status of V0_ORDER_STATUSES) {
    for (const event of V0_ORDER_EVENTS) {
      const row = ALLOWED.find(([from, e]) => from === status && e === event);
      it(`${status} --${event}--> ${row ? `${row[2]} (lock ${row[3]})` : 'CONFLICT'}`, () => {
        if (row) {
          assert.deepEqual(decideV0Order(status, event), { status: row[2], lock: row[3] });
        } else {
          assert.throws(
            () => decideV0Order(status, event),
            (e: unknown) => e instanceof ServiceError && e.code === 'CONFLICT' && e.details?.['status'] === status && e.details['event'] === event,
          );
        }
      });
    }
  }

  it('a status is terminal exactly when no event leaves it, and every way into one releases the lock', () => {
    for (const status of V0_ORDER_STATUSES) assert.equal(isTerminal(status), !ALLOWED.some(([from]) => from === status), status);
    for (const [, , to, lock] of ALLOWED) assert.equal(lock === 'release', isTerminal(to), `${to} ${lock}`);
  });

  it('finishes by what was filled and whether the user cancelled', () => {
    assert.equal(finishEvent(10n, 10n, false), 'fillCompletely');
    assert.equal(finishEvent(10n, 10n, true), 'fillCompletely', 'a cancel that lost the race to the last fill');
    assert.equal(finishEvent(10n, 4n, true), 'cancel', 'cancelled by the user even after part filled');
    assert.equal(finishEvent(10n, 0n, true), 'cancel');
    assert.equal(finishEvent(10n, 4n, false), 'endPartlyFilled');
    assert.equal(finishEvent(10n, 0n, false), 'expire');
  });

  it('only a live GTC order is cancellable: filled, partially filled and cancelled ones are not', () => {
    const live = V0_ORDER_STATUSES.filter((s) => cancellable(s, 'Gtc'));
    assert.deepEqual(live, ['pending', 'open']);
    assert.deepEqual(V0_ORDER_STATUSES.filter((s) => cancellable(s, 'Ioc')), []);
  });
});
