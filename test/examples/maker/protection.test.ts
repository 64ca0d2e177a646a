/**
 * The reference maker's protection behaviour (DESIGN.md section 11), against a real node
 * and the venue simulator on both databases: by default its session asks for cancel on disconnect
 * (so stopping it cancels its open quotes), it sets the market-maker protection its instrument is
 * configured with, pauses that instrument when the protection trips, and resets it itself after
 * its configured cool-down, quoting again afterwards; it arms a dead man's switch and keeps pushing
 * it back, and disarms it when stopped.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startVenueSim, type VenueSim } from '../../../sim/venue/index.ts';
import type { ReferenceMaker } from '../../../examples/maker/maker.ts';
import { eventually } from '../../helpers/eventually.ts';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { PERP, listPerpInstrument, perpTakerUser, perpTrade, quotedPerpRfq, startPerpMaker, venueOption } from '../../helpers/perp-trade.ts';

const BUILDER = '0x00000000000000000000000000000000000000b4' as const;
const COOL_DOWN_MS = 1500;

interface AdminMaker {
  protection: Array<{ instrumentId: string; maxSelectedQuotes: number | null; triggeredAt: number | null; reason: string | null }>;
  sessions: Array<{ cancelOnDisconnect: boolean }>;
  cancelAllAfter: { firesAt: number | null };
}

for (const backend of backends()) {
  describe(`reference maker protection [${backend}]`, () => {
    let sim: VenueSim;
    let h: Harness;
    let maker: ReferenceMaker;
    const lines: Array<{ at: number; line: string }> = [];
    const logged = (text: string) => lines.find((l) => l.line.includes(text));
    const view = () => h.admin.call<AdminMaker>('GET', `/makers/${maker.address}`);

    before(async () => {
      sim = await startVenueSim({ port: 0 });
      h = await startHarness(backend, { logLevel: 'silent', venue: venueOption(sim.url, BUILDER) });
      await listPerpInstrument(h);
      maker = await startPerpMaker(h, sim.url, { protection: { windowMs: 60_000, maxSelectedQuotes: 1 } }, { protectionCoolDownMs: COOL_DOWN_MS, cancelAllAfterMs: 1_500, log: (_level, line) => lines.push({ at: Date.now(), line }) });
    });
    after(async () => {
      await maker?.stop();
      await h?.close();
      await sim?.stop();
    });

    it('opts in to cancel on disconnect by default and sets its configured protection at start', async () => {
      const seen = await eventually(view, (m) => m.sessions.length > 0, 5_000);
      assert.deepEqual(seen.sessions.map((s) => s.cancelOnDisconnect), [true], 'its one session holds cancel on disconnect');
      assert.deepEqual(seen.protection.map((p) => [p.instrumentId, p.maxSelectedQuotes, p.triggeredAt]), [[PERP, 1, null]]);
    });

    it('arms its dead man\'s switch and keeps pushing it back', async () => {
      const first = (await view()).cancelAllAfter.firesAt;
      assert.ok(first !== null && first > Date.now(), `armed: ${String(first)}`);
      // Pushed back every third of its timeout (1,500 ms here): the deadline moves on.
      const later = await eventually(async () => (await view()).cancelAllAfter.firesAt, (at) => at !== null && at > first, 5_000, 100);
      assert.ok(later !== null && later > first);
    });

    it('pauses when its protection trips and resets it itself after the cool-down, then quotes again', async () => {
      const user = await perpTakerUser(h, sim.url, BUILDER);
      const { rfq } = await perpTrade(user, 'BUY');
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      // The perp selection is counted and, at maxSelectedQuotes 1, trips the protection: the maker
      // hears it on its session (the `protection` frame) and pauses the instrument.
      await eventually(async () => maker.stats.protectionTrips, (n) => n === 1, 5_000);
      const trip = logged(`market-maker protection tripped on ${PERP} (maxSelectedQuotes)`);
      assert.ok(trip, lines.map((l) => l.line).join('\n'));
      // Nobody resets it but the maker, and only after its cool-down.
      const reset = await eventually(async () => logged(`market-maker protection on ${PERP} reset; quoting again`), (l) => l !== undefined, 15_000, 100);
      assert.ok(reset, lines.map((l) => l.line).join('\n'));
      assert.ok(reset.at - trip.at >= COOL_DOWN_MS, `reset ${reset.at - trip.at} ms after the trip, cool-down ${COOL_DOWN_MS} ms`);
      assert.deepEqual((await view()).protection.map((p) => [p.triggeredAt, p.reason]), [[null, null]], 'armed again');

      // Quoting again: a new RFQ is quoted and trades.
      const again = await perpTrade(user, 'SELL');
      assert.equal(again.rfq.status, 'SETTLED', JSON.stringify(again.rfq));
    });

    it('stopping it cancels its open quotes (cancel on disconnect)', async () => {
      // The last trade tripped the protection again: wait for the maker's own second reset first.
      await eventually(async () => lines.filter((l) => l.line.includes(`market-maker protection on ${PERP} reset`)).length, (n) => n === 2, 15_000, 100);
      assert.equal(maker.stats.protectionTrips, 2);
      const user = await perpTakerUser(h, sim.url, BUILDER);
      const { quote } = await quotedPerpRfq(user, 'BUY');
      assert.equal(quote.status, 'SUBMITTED');
      await maker.stop();
      const after = await eventually(() => user.client.getQuote(quote.quoteId), (q) => q.status !== 'SUBMITTED', 5_000);
      assert.equal(after.status, 'CANCELLED', 'its quote went with its session');
      assert.equal((await view()).cancelAllAfter.firesAt, null, 'stopped on purpose, its switch is disarmed');
    });
  });
}
