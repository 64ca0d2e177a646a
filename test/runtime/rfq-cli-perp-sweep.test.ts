/**
 * Perp SWEEP RFQs end to end against a real node executing on the venue simulator, with three
 * reference makers each quoting a share of the RFQ (40 %, so 0.12 of 0.3: no single quote fills
 * it, and the third is cut to 0.06): the taker CLI (`npm run rfq -- buy 0.3 ETH-USDC-PERP --sweep`)
 * run as a child process, and the client library's `PerpTaker.acceptSweep` directly. Each ranks
 * the quotes it sees, signs one IOC for the selected base at the worst selected maker price, and
 * accepts naming the selected quotes; the RFQ settles with three SETTLED legs, each leg's quote
 * carrying its fill, and the taker holds the whole position at the venue.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { privateKeyToAccount } from 'viem/accounts';
import { startVenueSim, type VenueSim } from '../../sim/venue/index.ts';
import type { ReferenceMaker } from '../../examples/maker/maker.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import type { Quote, Rfq } from '../../src/client/types.ts';
import { backends } from '../helpers/backends.ts';
import { exited, runCli, type Run } from '../helpers/cli.ts';
import { eventually } from '../helpers/eventually.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { listPerpInstrument, PERP, perpTakerUser, startPerpMaker, venueKey, venueOption } from '../helpers/perp-trade.ts';

const BUILDER = '0x00000000000000000000000000000000000000b5';
/** Each maker's share of a sweep, basis points: 0.12 of 0.3, so three makers, the last cut. */
const SHARE_BP = 4000;

for (const backend of backends()) {
  describe(`perp sweeps from the taker CLI and the client [${backend}]`, () => {
    let sim: VenueSim;
    let h: Harness;
    let scratch: string;
    const makers: ReferenceMaker[] = [];

    const cli = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
      runCli('src/runtime/rfq-cli.ts', ['--url', h.url, ...args], scratch, { RFQ_VENUE_URL: sim.url, RFQ_VENUE_BUILDER_ADDRESS: BUILDER, ...env });

    const positionOf = async (user: string): Promise<string | undefined> => {
      const info = new InfoClient({ transport: new HttpTransport({ apiUrl: sim.url }) });
      return (await info.clearinghouseState({ user: user as `0x${string}` })).assetPositions.find((p) => p.position.coin === 'ETH')?.position.szi;
    };

    /** The RFQ settled by three legs of 0.12, 0.12 and 0.06, each SETTLED with its quote's fill. */
    async function assertThreeLegs(client: { getQuote(id: string): Promise<Quote> }, rfq: Rfq): Promise<void> {
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.equal(rfq.fill, 'SWEEP');
      assert.deepEqual(rfq.fills?.map((f) => [f.baseQty, f.status]), [['0.12', 'SETTLED'], ['0.12', 'SETTLED'], ['0.06', 'SETTLED']], JSON.stringify(rfq.fills));
      for (const leg of rfq.fills!) {
        const quote = await eventually(() => client.getQuote(leg.quoteId), (q) => q.perpFilledSize != null);
        assert.equal(quote.status, 'SETTLED');
        assert.equal(quote.perpFilledSize, leg.baseQty, `leg ${leg.quoteId} filled its size`);
      }
    }

    before(async () => {
      sim = await startVenueSim({ port: 0 });
      h = await startHarness(backend, { logLevel: 'silent', venue: venueOption(sim.url, BUILDER) });
      await listPerpInstrument(h);
      scratch = await mkdtemp(path.join(tmpdir(), 'rfq-perp-sweep-'));
      for (let i = 0; i < 3; i++) makers.push(await startPerpMaker(h, sim.url, { sweepShareBp: SHARE_BP }, { name: `sweep-maker-${i + 1}` }));
    });
    after(async () => {
      await Promise.all(makers.map((m) => m.stop()));
      await h?.close();
      await sim?.stop();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    it('CLI buy 0.3 --sweep --min 0.1: one IOC over three quotes, three SETTLED legs, each with its fill', async () => {
      const key = await venueKey(sim.url);
      const account = privateKeyToAccount(key);
      const creds = path.join(scratch, 'sweep-taker.json');
      exited(await cli(['--credentials', creds, 'login', '--private-key', key]), 0);
      const run = exited(await cli(['--credentials', creds, 'buy', '0.3', PERP, '--sweep', '--min', '0.1', '--window', '3s']), 0);
      const out = run.stdout;
      assert.match(out, /^rfq rfq_\S+: BUY 0\.3 ETH-USDC-PERP, limit \S+, sweep \(at least 0\.1\);/m);
      assert.match(out, /^signed buy IOC 0\.3 @ \d+(\.\d+)? over 3 quotes \(cloid 0x[0-9a-f]{32}, nonce \d+\)$/m);
      assert.equal(out.match(/^ {2}leg qt_\S+ v\d+: 0\.12 @ /gm)?.length, 2, out);
      assert.match(out, /^ {2}leg qt_\S+ v\d+: 0\.06 @ \S+ \(cut from 0\.12\)$/m);
      assert.match(out, /^selected 3 quotes: qt_\S+, qt_\S+, qt_\S+$/m);
      const rfqId = /^SETTLED (rfq_\S+)$/m.exec(out)?.[1];
      assert.ok(rfqId, out);
      assert.match(out, /^ {2}bought {4}0\.3 ETH \(perp\) of 0\.3 in 3 legs$/m);
      assert.equal(out.match(/^ {2}leg {7}qt_\S+: 0\.\d+ ETH for \S+ USDC, SETTLED, filled 0\.\d+ @ \d/gm)?.length, 3, out);

      // Read as the CLI's own account: an RFQ is its taker's.
      const taker = new RfqClient(h.url);
      await taker.signIn(account);
      await assertThreeLegs(taker, await taker.getRfq(rfqId));
      assert.equal(await positionOf(account.address), '0.3', 'the taker holds the whole sweep at the venue');
    });

    it('client SELL 0.3: PerpTaker.acceptSweep names the three selected quotes in rank order', async () => {
      const user = await perpTakerUser(h, sim.url, BUILDER);
      const quoteLimit = await user.taker.defaultLimit(PERP, 'SELL', '0.3');
      const { rfqId } = await user.client.createRfq({ instrumentId: PERP, side: 'SELL', baseQty: '0.3', quoteLimit, fill: 'SWEEP', windowMs: 30_000 });
      const quotes = (await eventually(() => user.client.rfqQuotes(rfqId), (page) => page.items.length === 3)).items;
      assert.ok(quotes.every((q) => q.allOrNone === false && q.makerPays.token === 'USDC' && q.makerReceives.amount === '0.12'), JSON.stringify(quotes));
      const rfq = await user.client.getRfq(rfqId);
      const { plan, accepted } = await user.taker.acceptSweep(rfq, quotes);
      assert.equal(plan.s, '0.3');
      assert.deepEqual(accepted.quoteIds, plan.quotes.map((q) => q.quoteId));
      const settled = await eventually(() => user.client.getRfq(rfqId), (r) => r.status === 'SETTLED' || r.status === 'FAILED', 30_000);
      assert.deepEqual(settled.fills?.map((f) => f.quoteId), accepted.quoteIds, 'the legs in the rank order named');
      await assertThreeLegs(user.client, settled);
      assert.equal(await positionOf(user.account.address), '-0.3');
    });
  });
}
