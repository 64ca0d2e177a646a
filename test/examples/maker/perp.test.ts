/**
 * The reference maker on perps against a real node and the venue simulator, on both databases:
 * it prices a perp RFQ from the venue's book, sends `perpMakerOrder` and `perpMakerCancel` signed
 * with the SDK, and a taker using the client library (PerpTaker) accepts; the service places the
 * maker's ALO, the taker's IOC meets it, and the RFQ settles with the fill on both views. Also
 * the price rule itself (inside the book, never behind its touch, on the grid).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startVenueSim, type VenueSim } from '../../../sim/venue/index.ts';
import { VenueSimControl } from '../../../sim/venue/control.ts';
import { ReferenceMaker } from '../../../examples/maker/maker.ts';
import { perpMakerPrice } from '../../../examples/maker/pricing.ts';
import { PerpTaker } from '../../../src/client/perp-taker.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import type { Quote, Rfq } from '../../../src/client/types.ts';
import { eventually } from '../../helpers/eventually.ts';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';

const BUILDER = '0x00000000000000000000000000000000000000b3';

describe('reference maker perp price', () => {
  const touch = { bestBid: 3499_650000n, bestAsk: 3500_350000n };
  it('improves on the touch when its spread is wider than the book, staying strictly inside', () => {
    // ETH: 4 size decimals, so 0.1 price steps at 3500 (5 significant figures).
    assert.equal(perpMakerPrice('BUY', touch, 10, 4), 3500_300000n);
    assert.equal(perpMakerPrice('SELL', touch, 10, 4), 3499_700000n);
  });
  it('quotes its own spread when that is inside the book', () => {
    const wide = { bestBid: 3490_000000n, bestAsk: 3510_000000n };
    assert.equal(perpMakerPrice('BUY', wide, 10, 4), 3501_800000n);
    assert.equal(perpMakerPrice('SELL', wide, 10, 4), 3498_200000n);
  });
  it('integer prices above 5 significant figures; nothing when the book leaves no grid price inside', () => {
    assert.equal(perpMakerPrice('BUY', { bestBid: 99_990_000000n, bestAsk: 100_010_000000n }, 10, 5), 100_009_000000n);
    assert.equal(perpMakerPrice('BUY', { bestBid: 3500_000000n, bestAsk: 3500_100000n }, 10, 4), null);
    assert.equal(perpMakerPrice('SELL', { bestBid: null, bestAsk: 3500_100000n }, 10, 4), null);
  });
});

for (const backend of backends()) {
  describe(`reference maker on perps [${backend}]`, () => {
    let sim: VenueSim;
    let h: Harness;
    let maker: ReferenceMaker;
    const lines: string[] = [];

    async function venueAccount() {
      const account = privateKeyToAccount(generatePrivateKey());
      await new VenueSimControl(sim.url).fund({ user: account.address, account: 'perp', token: 'USDC', amount: '100000' });
      return account;
    }

    before(async () => {
      sim = await startVenueSim({ port: 0 });
      h = await startHarness(backend, { logLevel: 'silent', venue: { url: sim.url, network: 'mainnet', builderAddress: BUILDER } });
      await h.admin.putInstrument('ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 20, minQuoteNotional: '10' });
      const key = generatePrivateKey();
      const address = privateKeyToAccount(key).address;
      await new VenueSimControl(sim.url).fund({ user: address, account: 'perp', token: 'USDC', amount: '100000' });
      await h.admin.putMaker(address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['perp'] });
      maker = new ReferenceMaker({
        baseUrl: h.url,
        privateKey: key,
        venue: { url: sim.url, network: 'mainnet' },
        instruments: [{ instrumentId: 'ETH-USDC-PERP', referencePrice: '3500', spreadBp: 10, maxBaseQty: '5', levelSize: '1' }],
        tickMs: 200,
        log: (_level, line) => lines.push(line),
      });
      await maker.start();
    });
    after(async () => {
      await maker?.stop();
      await h?.close();
      await sim?.stop();
    });

    for (const side of ['BUY', 'SELL'] as const) {
      it(`${side}: quotes from the venue's book with signed venue orders, and the accepted quote settles`, async () => {
        const account = await venueAccount();
        const client = new RfqClient(h.url);
        await client.signIn(account);
        const taker = await PerpTaker.connect(client, account, { url: sim.url, network: 'mainnet', builderAddress: BUILDER });
        const quoteLimit = await taker.defaultLimit('ETH-USDC-PERP', side, '0.2');
        const { rfqId } = await client.createRfq({ instrumentId: 'ETH-USDC-PERP', side, baseQty: '0.2', quoteLimit, windowMs: 30_000 });
        const quotes = await eventually(() => client.rfqQuotes(rfqId), (page) => page.items.length > 0);
        const quote = quotes.items[0] as Quote;
        assert.ok(quote, 'the reference maker quoted');
        assert.equal(quote.builderFeeTenthBp, 20);
        // Inside the simulator's book (mid 3500, 1 bp either side): 3500.3 to sell, 3499.7 to buy.
        assert.deepEqual(side === 'BUY' ? quote.makerReceives : quote.makerPays, { token: 'USDC', amount: side === 'BUY' ? '700.06' : '699.94' });
        const rfq = await (async () => {
          await taker.accept({ id: rfqId, instrumentId: 'ETH-USDC-PERP', side }, quote);
          return eventually(() => client.getRfq(rfqId), (r: Rfq) => r.status === 'SETTLED' || r.status === 'FAILED');
        })();
        assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
        assert.equal(rfq.selectedQuoteId, quote.quoteId);
        const settled = await client.getQuote(quote.quoteId);
        assert.deepEqual([settled.perpFilledSize, settled.perpFillAvgPx], ['0.2', side === 'BUY' ? '3500.3' : '3499.7']);
        const mine = (await maker.client.makerQuotes({ status: ['SETTLED'] })).items.find((q) => q.quoteId === quote.quoteId);
        assert.equal(mine?.perpMakerFilledSize, '0.2', "the maker's own ALO was what the taker met");
        await eventually(async () => lines.some((l) => l.includes(`settled ${quote.quoteId}`)), (seen) => seen, 5_000);
        assert.ok(lines.some((l) => l.includes(`settled ${quote.quoteId} (${rfqId}) at the venue`)), lines.join('\n'));
      });
    }
  });
}
