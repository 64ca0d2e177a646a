import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isLateRelay, relayDelayMs, relayedAt } from '../../../src/domain/settlement/index.ts';

describe('relay timing', () => {
  it('times a relay by the earlier of its block and its sighting', () => {
    // Seen 30 s after its block (confirmations, a follower outage): the block's time counts.
    assert.equal(relayedAt(1_700_000_000, 1_700_000_030_000), 1_700_000_000_000);
    // A chain clock moved ahead of the wall clock: the sighting bounds it.
    assert.equal(relayedAt(1_700_000_600, 1_700_000_001_000), 1_700_000_001_000);
    assert.equal(relayedAt(null, 1_700_000_001_000), 1_700_000_001_000);
  });

  it('is late only past the grace, and never negative', () => {
    assert.equal(relayDelayMs(1_000, 500), 0);
    assert.equal(isLateRelay(10_000, 10), false);
    assert.equal(isLateRelay(10_001, 10), true);
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 1, max: 86_400 }), (selected, relayed, grace) => {
      const delay = relayDelayMs(selected, relayed);
      assert.ok(delay >= 0 && delay >= relayed - selected);
      assert.equal(isLateRelay(delay, grace), relayed - selected > grace * 1000);
    }));
  });
});
