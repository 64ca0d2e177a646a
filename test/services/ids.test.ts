import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uuidv7 } from '../../src/services/ids.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('uuidv7 carries the milliseconds big-endian, version 7 and the RFC variant', () => {
  for (const ms of [0, 1, 255, 256, 1_732_812_345_678, 2 ** 48 - 1]) {
    const id = uuidv7(ms);
    assert.match(id, UUID_V7);
    assert.equal(parseInt(id.replace(/-/g, '').slice(0, 12), 16), ms, id);
  }
});

test('uuidv7 ids stay distinct across many refills of the random pool', () => {
  const now = 1_732_812_345_678;
  const seen = new Set<string>();
  // 409 ids per pool of 4,090 bytes: this crosses the refill about 50 times.
  for (let i = 0; i < 20_000; i++) seen.add(uuidv7(now));
  assert.equal(seen.size, 20_000);
});

test('uuidv7 sorts by creation time across milliseconds', () => {
  const ids = [5, 4, 3, 2, 1].map((k) => uuidv7(1_732_812_345_000 + k * 1_000));
  assert.deepEqual([...ids].sort(), [...ids].reverse());
});
