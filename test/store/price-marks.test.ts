/**
 * The consolidated mid's marks (src/store/price-marks.ts): keyed by the end of the second they
 * were seen in, one row per instrument and second whoever writes it, read as the latest mark at
 * or before a moment within the lookback, and pruned oldest first in bounded batches.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backends, openMigratedStore } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { MARK_LOOKBACK_MS, priceMarkAt, prunePriceMarks, recordPriceMarks } from '../../src/store/price-marks.ts';

const ETH = 'ETH-USDC-SPOT';
const T = 1_800_000_000_000;

for (const backend of backends()) {
  describe(`price marks [${backend}]`, () => {
    let store: Store;
    let close: () => Promise<void>;
    before(async () => {
      ({ store, close } = await openMigratedStore(backend));
    });
    after(async () => close?.());

    it('never answers a moment with a price seen after it, keeps the first write of a second, and ends at the lookback', async () => {
      await recordPriceMarks(store.db, T + 400, [{ instrumentId: ETH, mid: 2850n * 10n ** 18n }]);
      // Another node, the same second, a different mid: the first row stands.
      await recordPriceMarks(store.db, T + 900, [{ instrumentId: ETH, mid: 2851n * 10n ** 18n }]);
      await recordPriceMarks(store.db, T + 1_600, [{ instrumentId: ETH, mid: 2950n * 10n ** 18n }]);
      assert.equal(await priceMarkAt(store.db, ETH, T + 500), null, 'seen at T+400, known only by the end of its second');
      assert.equal(await priceMarkAt(store.db, ETH, T + 1_000), 2850n * 10n ** 18n);
      assert.equal(await priceMarkAt(store.db, ETH, T + 1_999), 2850n * 10n ** 18n);
      assert.equal(await priceMarkAt(store.db, ETH, T + 2_000), 2950n * 10n ** 18n);
      assert.equal(await priceMarkAt(store.db, ETH, T + 2_000 + MARK_LOOKBACK_MS - 1), 2950n * 10n ** 18n);
      assert.equal(await priceMarkAt(store.db, ETH, T + 2_000 + MARK_LOOKBACK_MS), null, 'a quiet book says nothing');
      assert.equal(await priceMarkAt(store.db, 'BTC-USDC-SPOT', T + 2_000), null);
    });

    it('prunes the oldest marks first, at most a batch at a time', async () => {
      const base = T + 10_000_000;
      for (let i = 0; i < 5; i++) await recordPriceMarks(store.db, base + i * 1000, [{ instrumentId: 'BTC-USDC-SPOT', mid: BigInt(60_000 + i) * 10n ** 18n }]);
      assert.equal(await prunePriceMarks(store.db, base + 4_000, 2), 2, 'the two earliest ETH marks');
      assert.equal(await prunePriceMarks(store.db, base + 4_000, 10), 3, 'the rest before the cut');
      assert.equal(await prunePriceMarks(store.db, base + 4_000, 10), 0);
      const left = await store.db.selectFrom('price_marks').select('at').orderBy('at').execute();
      assert.deepEqual(left.map((r) => Number(r.at)), [base + 4_000, base + 5_000]);
    });
  });
}
