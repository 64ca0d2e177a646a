/**
 * The `/v0` withdrawal machine, table-driven over the spec's three states: every (state, event)
 * pair is either a row here or refused with CONFLICT.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../../src/domain/errors.ts';
import {
  V0_WITHDRAWAL_EVENTS,
  V0_WITHDRAWAL_STATES,
  decideV0Withdrawal,
  isTerminal,
  v0WithdrawalTransition,
  type V0WithdrawalEvent,
  type V0WithdrawalLockEffect,
  type V0WithdrawalState,
} from '../../../src/domain/v0/withdrawal-status.ts';

const ALLOWED: Array<[V0WithdrawalState, V0WithdrawalEvent, V0WithdrawalState, V0WithdrawalLockEffect]> = [
  ['pending', 'complete', 'completed', 'consume'],
  ['pending', 'fail', 'failed', 'release'],
];

describe('/v0 withdrawal state machine', () => {
  it("knows exactly the spec's three states", () => {
    assert.deepEqual([...V0_WITHDRAWAL_STATES].sort(), ['completed', 'failed', 'pending']);
  });

  for (const state of V0_WITHDRAWAL_STATES) {
    for (const event of V0_WITHDRAWAL_EVENTS) {
      const row = ALLOWED.find(([from, e]) => from === state && e === event);
      it(`${state} --${event}--> ${row ? `${row[2]} (lock ${row[3]})` : 'CONFLICT'}`, () => {
        if (row) {
          assert.deepEqual(decideV0Withdrawal(state, event), { state: row[2], lock: row[3] });
        } else {
          assert.throws(
            () => decideV0Withdrawal(state, event),
            (e: unknown) => e instanceof ServiceError && e.code === 'CONFLICT' && e.details?.['status'] === state && e.details['event'] === event,
          );
        }
      });
    }
  }

  it('a write without the row lock is a compare-and-set on exactly the states the event applies to', () => {
    for (const [from, event, to, lock] of ALLOWED) assert.deepEqual(v0WithdrawalTransition(event), { from: [from], to, lock });
  });

  it('a finished withdrawal is terminal, and every way into one ends the lock', () => {
    assert.deepEqual(V0_WITHDRAWAL_STATES.filter(isTerminal), ['completed', 'failed']);
  });
});
