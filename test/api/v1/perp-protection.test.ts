/**
 * Market-maker protection on perp selections (docs/decisions/0037-maker-protection.md: perp selections
 * are counted, never refused), against the venue simulator on both databases. A perp quote is selected by the
 * execution once its venue order filled, so there is nothing left to refuse: the selection is
 * counted, the one that reaches a limit executes and trips the setting (by count or by notional),
 * the maker hears the `protection` frame, its other open quote on the instrument is cancelled,
 * and new quotes there are refused with 409 MAKER_PROTECTION_TRIGGERED until it resets.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startVenueSim, type VenueSim } from '../../../sim/venue/index.ts';
import type { ReferenceMaker } from '../../../examples/maker/maker.ts';
import { eventually } from '../../helpers/eventually.ts';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { PERP, listPerpInstrument, perpTakerUser, perpTrade, quotedPerpRfq, startPerpMaker, venueOption, type PerpTakerUser } from '../../helpers/perp-trade.ts';

const BUILDER = '0x00000000000000000000000000000000000000b5' as const;
/** Long enough that the reference maker never resets by itself during the test. */
const NO_RESET_MS = 600_000;

interface ProtectionState { triggeredAt: number | null; reason: string | null }

for (const backend of backends()) {
  describe(`market-maker protection on perp selections [${backend}]`, () => {
    let sim: VenueSim;
    let h: Harness;
    let user: PerpTakerUser;
    const makers: ReferenceMaker[] = [];
    const protection = async (maker: ReferenceMaker): Promise<ProtectionState> => (await maker.client.protection()).items.find((p) => p.instrumentId === PERP)!;
    const counted = async (maker: ReferenceMaker) =>
      (await h.node.store.db.selectFrom('maker_protection_selections').innerJoin('accounts', 'accounts.id', 'maker_protection_selections.maker_account_id').select('quote_id').where('accounts.address', '=', maker.address).execute()).map((r) => r.quote_id);

    before(async () => {
      sim = await startVenueSim({ port: 0 });
      h = await startHarness(backend, { logLevel: 'silent', venue: venueOption(sim.url, BUILDER) });
      await listPerpInstrument(h);
      user = await perpTakerUser(h, sim.url, BUILDER);
    });
    after(async () => {
      for (const maker of makers) await maker.stop();
      await h?.close();
      await sim?.stop();
    });

    it('by count: each perp selection is counted, the one at the limit executes and trips it, the open quote is cancelled, new quotes refused until reset', async () => {
      const maker = await startPerpMaker(h, sim.url, { protection: { windowMs: 60_000, maxSelectedQuotes: 2 } }, { protectionCoolDownMs: NO_RESET_MS });
      makers.push(maker);
      // A quote of this maker left open on another RFQ while it is picked off.
      const other = await perpTakerUser(h, sim.url, BUILDER);
      const open = await quotedPerpRfq(other, 'SELL');

      const first = await perpTrade(user, 'BUY');
      assert.equal(first.rfq.status, 'SETTLED', JSON.stringify(first.rfq));
      assert.deepEqual(await counted(maker), [first.quote.quoteId], 'the perp selection is counted');
      assert.equal((await protection(maker)).triggeredAt, null, 'one of two: still armed');

      const second = await perpTrade(user, 'BUY');
      assert.equal(second.rfq.status, 'SETTLED', 'the selection that reaches the limit is not refused: its venue order already filled');
      assert.deepEqual((await counted(maker)).sort(), [first.quote.quoteId, second.quote.quoteId].sort());
      const tripped = await protection(maker);
      assert.equal(tripped.reason, 'maxSelectedQuotes');
      assert.ok(tripped.triggeredAt !== null);
      await eventually(async () => maker.stats.protectionTrips, (n) => n === 1, 5_000);
      assert.equal(maker.stats.protectionTrips, 1, 'the maker got the protection frame');

      const cancelled = await eventually(() => other.client.getQuote(open.quote.quoteId), (q) => q.status !== 'SUBMITTED', 5_000);
      assert.equal(cancelled.status, 'CANCELLED', "the maker's other open quote on the instrument is cancelled");
      const legs = { makerPays: open.quote.makerPays, makerReceives: open.quote.makerReceives };
      await rejects(maker.client.submitQuote({ rfqId: open.rfqId, instrumentId: PERP, side: 'SELL', ...legs }), 409, 'MAKER_PROTECTION_TRIGGERED');

      await maker.client.resetProtection(PERP);
      assert.deepEqual(await protection(maker), { ...tripped, triggeredAt: null, reason: null });
      assert.deepEqual(await counted(maker), [], 'a reset starts the window afresh');
    });

    it('by notional: the perp selection that brings the window\'s notional to maxSelectedNotional executes and trips it', async () => {
      // The first maker is paused (never resets here), so this one's quote is the only one.
      const maker = await startPerpMaker(h, sim.url, { protection: { windowMs: 60_000, maxSelectedNotional: '500' } }, { protectionCoolDownMs: NO_RESET_MS });
      makers.push(maker);
      const first = await perpTrade(user, 'SELL', '0.1');
      assert.equal(first.rfq.status, 'SETTLED', JSON.stringify(first.rfq));
      assert.equal((await protection(maker)).triggeredAt, null, `${first.quote.makerPays.amount} USDC is under 500`);
      const second = await perpTrade(user, 'SELL', '0.1');
      assert.equal(second.rfq.status, 'SETTLED', 'not refused: its venue order already filled');
      // About 350 + 350 USDC in the window: at or over 500.
      const tripped = await protection(maker);
      assert.equal(tripped.reason, 'maxSelectedNotional', JSON.stringify(tripped));
      await eventually(async () => maker.stats.protectionTrips, (n) => n === 1, 5_000);
    });
  });
}
