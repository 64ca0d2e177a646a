/**
 * The custody transfer machine, table-driven: every (status, event) pair is either a row here or
 * refused with CONFLICT.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../../src/domain/errors.ts';
import {
  CUSTODY_TRANSFER_EVENTS,
  CUSTODY_TRANSFER_STATUSES,
  cancellable,
  custodyTransferTransition,
  decideCustodyTransfer,
  isTerminal,
  type CustodyTransferEvent,
  type CustodyTransferStatus,
} from '../../../src/domain/funds/custody-transfer-state.ts';

const ALLOWED: Array<[CustodyTransferStatus, CustodyTransferEvent, CustodyTransferStatus]> = [
  ['QUEUED', 'sign', 'SIGNED'],
  ['QUEUED', 'expire', 'EXPIRED'],
  ['SIGNED', 'replace', 'SIGNED'],
  ['SENT', 'replace', 'SIGNED'],
  ['SIGNED', 'send', 'SENT'],
  ['SENT', 'send', 'SENT'],
  ['SENT', 'confirm', 'CONFIRMED'],
  ['SENT', 'revert', 'REVERTED'],
  ['SENT', 'cancel', 'CANCELLED'],
  ['SENT', 'lose', 'UNRESOLVED'],
  ['SIGNED', 'resolveCompleted', 'CONFIRMED'],
  ['SENT', 'resolveCompleted', 'CONFIRMED'],
  ['UNRESOLVED', 'resolveCompleted', 'CONFIRMED'],
  ['SIGNED', 'resolveFailed', 'REVERTED'],
  ['SENT', 'resolveFailed', 'REVERTED'],
  ['UNRESOLVED', 'resolveFailed', 'REVERTED'],
];

describe('custody transfer state machine', () => {
  it('knows exactly the eight statuses the operator sees', () => {
    assert.deepEqual([...CUSTODY_TRANSFER_STATUSES].sort(), ['CANCELLED', 'CONFIRMED', 'EXPIRED', 'QUEUED', 'REVERTED', 'SENT', 'SIGNED', 'UNRESOLVED']);
  });

  for (const status of CUSTODY_TRANSFER_STATUSES) {
    for (const event of CUSTODY_TRANSFER_EVENTS) {
      const row = ALLOWED.find(([from, e]) => from === status && e === event);
      it(`${status} --${event}--> ${row ? row[2] : 'CONFLICT'}`, () => {
        if (row) {
          assert.equal(decideCustodyTransfer(status, event), row[2]);
        } else {
          assert.throws(
            () => decideCustodyTransfer(status, event),
            (e: unknown) => e instanceof ServiceError && e.code === 'CONFLICT' && e.details?.['status'] === status && e.details['event'] === event,
          );
        }
      });
    }
  }

  it('a write without the row lock is a compare-and-set on exactly the statuses the event applies to', () => {
    for (const event of CUSTODY_TRANSFER_EVENTS) {
      const rows = ALLOWED.filter(([, e]) => e === event);
      assert.deepEqual(custodyTransferTransition(event), { from: rows.map(([from]) => from), to: rows[0]![2] }, event);
    }
  });

  it('a status is terminal exactly when no event leaves it', () => {
    const terminal = CUSTODY_TRANSFER_STATUSES.filter(isTerminal);
    assert.deepEqual(terminal, CUSTODY_TRANSFER_STATUSES.filter((s) => !ALLOWED.some(([from]) => from === s)));
    assert.deepEqual(terminal, ['CONFIRMED', 'REVERTED', 'CANCELLED', 'EXPIRED']);
  });

  it('only a signed transfer not yet known to be mined may be cancelled', () => {
    assert.deepEqual(CUSTODY_TRANSFER_STATUSES.filter(cancellable), ['SIGNED', 'SENT']);
  });
});
