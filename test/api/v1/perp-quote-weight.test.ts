/**
 * A perp quote's venue weight: a maker signing with its own key costs no `extraAgents` read (the
 * venue could be refusing it: the quote is still taken); one signed by an API wallet is looked up;
 * and once the minute's quote-time share of RFQ_VENUE_WEIGHT_PER_MIN is spent, quotes are
 * refused with 503 VENUE_UNAVAILABLE while an execution's reads still have room.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { PerpFixture } from '../../helpers/perp.ts';
import { rejects } from '../../helpers/rejects.ts';

for (const backend of backends()) {
  describe(`perp quote weight [${backend}]`, () => {
    let f: PerpFixture;
    before(async () => {
      // 100 a minute: quote-time reads stop at 75 (meta 20 + three agent reads of 20 do not fit).
      f = await PerpFixture.start(backend, { venueWeightPerMin: 100 });
    });
    after(() => f?.close());

    it('a self-signed maker quote reads no API wallets: taken while the venue refuses extraAgents', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      await f.control.addFault({ match: { endpoint: 'info', infoType: 'extraAgents' }, effect: { type: 'http', status: 500 }, count: null });
      try {
        const { quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
        assert.equal(quoteIds.length, 1);
      } finally {
        await f.control.clearFaults();
      }
    });

    it('a quote signed by the maker\'s API wallet is looked up; past the quote-time share, VENUE_UNAVAILABLE', async () => {
      const taker = await f.perpTaker();
      const signed = async () => {
        const maker = await f.perpMaker();
        const agent = privateKeyToAccount(generatePrivateKey());
        await f.exchange(maker.account).approveAgent({ agentAddress: agent.address, agentName: 'desk' });
        return f.auction(taker, 'BUY', [{ maker, usdc: '350.01', signer: agent }]);
      };
      // meta (20, cached for 5 s) and this maker's API wallets (20): 40 of the 75.
      assert.equal((await signed()).quoteIds.length, 1);
      // Each further one costs 20 more: the share is spent by the third at the latest.
      let refusedAt = 0;
      for (let i = 2; i <= 4 && refusedAt === 0; i++) {
        try {
          await signed();
        } catch {
          refusedAt = i;
        }
      }
      assert.ok(refusedAt > 0 && refusedAt <= 3, `refused at quote ${refusedAt}`);
      await rejects(signed(), 503, 'VENUE_UNAVAILABLE');
    });
  });
}
