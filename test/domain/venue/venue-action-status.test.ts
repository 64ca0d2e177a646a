/**
 * The venue action machine, table-driven: every (status, event) pair is either a row here or
 * refused with CONFLICT.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../../../src/domain/errors.ts';
import {
  VENUE_ACTION_EVENTS,
  VENUE_ACTION_STATUSES,
  decideVenueAction,
  isTerminal,
  venueActionTransition,
  type VenueActionEvent,
  type VenueActionStatus,
} from '../../../src/domain/venue/venue-action-status.ts';

const ALLOWED: Array<[VenueActionStatus, VenueActionEvent, VenueActionStatus]> = [
  ['SIGNED', 'send', 'SENT'],
  ['SENT', 'send', 'SENT'],
  ['SENT', 'acknowledge', 'ACKED'],
  ['SENT', 'refuse', 'REFUSED'],
];

describe('venue action state machine', () => {
  for (const status of VENUE_ACTION_STATUSES) {
    for (const event of VENUE_ACTION_EVENTS) {
      const row = ALLOWED.find(([from, e]) => from === status && e === event);
      it(`${status} --${event}--> ${row ? row[2] : 'CONFLICT'}`, () => {
        if (row) {
          assert.equal(decideVenueAction(status, event), row[2]);
        } else {
          assert.throws(
            () => decideVenueAction(status, event),
            (e: unknown) => e instanceof ServiceError && e.code === 'CONFLICT' && e.details?.['status'] === status && e.details['event'] === event,
          );
        }
      });
    }
  }

  it('a write without a lock is a compare-and-set on exactly the statuses the event applies to', () => {
    for (const event of VENUE_ACTION_EVENTS) {
      const rows = ALLOWED.filter(([, e]) => e === event);
      assert.deepEqual(venueActionTransition(event), { from: rows.map(([from]) => from), to: rows[0]![2] }, event);
    }
  });

  it('an answered action is terminal; a signed or sent one is not', () => {
    assert.deepEqual(VENUE_ACTION_STATUSES.filter(isTerminal), ['ACKED', 'REFUSED']);
  });
});
