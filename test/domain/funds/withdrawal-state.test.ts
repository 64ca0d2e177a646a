/** The withdrawal state machine, table-driven: every (status, event) pair is either a row here or a refusal. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../../src/domain/errors.ts';
import {
  WITHDRAWAL_EVENTS,
  WITHDRAWAL_STATUSES,
  decideWithdrawal,
  holdsLock,
  requestWithdrawalDecision,
  transitionWithdrawal,
  type LockEffect,
  type WithdrawalEvent,
  type WithdrawalStatus,
} from '../../../src/domain/funds/withdrawal-state.ts';
import { finaliseDeposit, transitionDeposit } from '../../../src/domain/funds/deposit-state.ts';
import type { Frame } from '../../../src/domain/frames.ts';

/** The account's balances: pushed when the lock is taken or ends, not while it is kept. */
const B: Frame = { kind: 'balances', accountId: 'acct-1' };

const ALLOWED: Array<[WithdrawalStatus, WithdrawalEvent, WithdrawalStatus, LockEffect, Frame[]]> = [
  ['PENDING', 'approve', 'APPROVED', 'keep', []],
  ['PENDING', 'reject', 'FAILED', 'release', [B]],
  ['APPROVED', 'sign', 'PROCESSING', 'keep', []],
  ['PROCESSING', 'confirm', 'COMPLETED', 'consume', [B]],
  ['PROCESSING', 'revert', 'FAILED', 'release', [B]],
  ['PROCESSING', 'lose', 'UNRESOLVED', 'keep', []],
  ['UNRESOLVED', 'resolveCompleted', 'COMPLETED', 'consume', [B]],
  ['UNRESOLVED', 'resolveFailed', 'FAILED', 'release', [B]],
];

const REFUSAL: Record<WithdrawalEvent, string> = {
  approve: 'WITHDRAWAL_NOT_PENDING',
  reject: 'WITHDRAWAL_NOT_PENDING',
  sign: 'CONFLICT',
  confirm: 'CONFLICT',
  revert: 'CONFLICT',
  lose: 'CONFLICT',
  resolveCompleted: 'WITHDRAWAL_NOT_UNRESOLVED',
  resolveFailed: 'WITHDRAWAL_NOT_UNRESOLVED',
};

describe('withdrawal state machine', () => {
  for (const status of WITHDRAWAL_STATUSES) {
    for (const event of WITHDRAWAL_EVENTS) {
      const row = ALLOWED.find(([from, e]) => from === status && e === event);
      it(`${status} --${event}--> ${row ? row[2] : REFUSAL[event]}`, () => {
        if (row) {
          assert.deepEqual(decideWithdrawal({ status, accountId: 'acct-1' }, event), { status: row[2], lock: row[3], frames: row[4] });
          assert.deepEqual(transitionWithdrawal(status, event), { status: row[2], lock: row[3] });
        } else {
          assert.throws(() => decideWithdrawal({ status, accountId: 'acct-1' }, event), (e: unknown) => e instanceof ServiceError && e.code === REFUSAL[event] && e.details?.['status'] === status);
          assert.throws(() => transitionWithdrawal(status, event), (e: unknown) => e instanceof ServiceError && e.code === REFUSAL[event] && e.details?.['status'] === status);
        }
      });
    }
  }

  it('the lock is live exactly while the withdrawal can still move funds', () => {
    assert.deepEqual(WITHDRAWAL_STATUSES.filter(holdsLock), ['PENDING', 'APPROVED', 'PROCESSING', 'UNRESOLVED']);
  });

  it('a request takes the lock and pushes the balances', () => {
    assert.deepEqual(requestWithdrawalDecision('acct-1'), { status: 'PENDING', lock: 'take', frames: [B] });
  });

  it('every transition into a lock-free status ends the lock, every other keeps it', () => {
    for (const [, , to, lock] of ALLOWED) assert.equal(lock === 'keep', holdsLock(to), `${to} ${lock}`);
  });
});

describe('deposit state machine', () => {
  it('completes from PENDING or FAILED (re-mined after a reorg), fails only from PENDING', () => {
    assert.equal(transitionDeposit('PENDING', 'finalise'), 'COMPLETED');
    assert.equal(transitionDeposit('FAILED', 'finalise'), 'COMPLETED');
    assert.equal(transitionDeposit('PENDING', 'vanish'), 'FAILED');
    for (const [status, event] of [['COMPLETED', 'finalise'], ['COMPLETED', 'vanish'], ['FAILED', 'vanish']] as const) {
      assert.throws(() => transitionDeposit(status, event), (e: unknown) => e instanceof ServiceError && e.code === 'CONFLICT');
    }
  });

  it('a final deposit completes (new, PENDING or FAILED) and pushes the credited account\'s balances; none for an unknown sender', () => {
    for (const status of [null, 'PENDING', 'FAILED'] as const) {
      assert.deepEqual(finaliseDeposit({ status, accountId: 'acct-1' }), { status: 'COMPLETED', frames: [B] });
      assert.deepEqual(finaliseDeposit({ status, accountId: null }), { status: 'COMPLETED', frames: [] });
    }
    assert.throws(() => finaliseDeposit({ status: 'COMPLETED', accountId: 'acct-1' }), (e: unknown) => e instanceof ServiceError && e.code === 'CONFLICT');
  });
});
