/**
 * A sweep's accept under contention, on both stores: two accepts of one sweep, makers re-pricing
 * while it is taken, and makers cancelling while it is taken. Whatever the interleaving, one set
 * of legs is selected, each leg is a quote at exactly the version the selection read, a quote is
 * never both cancelled and a leg, the taker's locks are the legs' totals and the invariants hold.
 */
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { ApiError } from '../../../src/client/http.ts';
import type { RfqClient } from '../../../src/client/rfq-client.ts';
import { parseAmount } from '../../../src/domain/money/index.ts';

const SWEEP_BUY = { instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, baseQty: '3', quoteLimit: '9300', fill: 'SWEEP' as const, minFillQty: '1', windowMs: 60_000 };
const usdcUnits = (amount: string) => parseAmount(amount, 6, { field: 'USDC' });
const ethUnits = (amount: string) => parseAmount(amount, 18, { field: 'ETH' });
const baseFilled = (fills: ReadonlyArray<{ baseQty: string }>) => fills.reduce((sum, f) => sum + ethUnits(f.baseQty), 0n);

async function lockedUsdc(client: RfqClient): Promise<bigint> {
  return usdcUnits((await client.balances()).balances.find((b) => b.token === 'USDC')?.locked ?? '0');
}

/** Settles a promise to its value or its ApiError code; anything else fails the test. */
async function outcome<T>(p: Promise<T>): Promise<{ ok: T } | { code: string }> {
  try {
    return { ok: await p };
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code };
    throw error;
  }
}

for (const backend of backends()) {
  describe(`sweep races [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => h.close());
    afterEach(async () => {
      assert.deepEqual((await h.admin.invariants()).violations, []);
    });

    async function sweepWithQuotes(makers: number, amount = '1') {
      const taker = await h.newUser();
      await h.fund(taker.account.address, { USDC: '100000' });
      const { rfqId } = await taker.client.createRfq(SWEEP_BUY);
      const quoting = await Promise.all(Array.from({ length: makers }, () => h.newMaker()));
      const quotes = await Promise.all(quoting.map(async (maker, i) => ({
        maker,
        quoteId: (await maker.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount }, makerReceives: { token: 'USDC', amount: String(3000 + i) }, allOrNone: false })).quoteId,
      })));
      return { taker, rfqId, quotes };
    }

    it('two accepts of one sweep at once select one set of legs; the other is its replay or RFQ_NOT_PENDING', async () => {
      for (let round = 0; round < 5; round++) {
        const { taker, rfqId } = await sweepWithQuotes(4);
        const [a, b] = await Promise.all([outcome(taker.client.acceptSweep(rfqId, { sweep: true })), outcome(taker.client.acceptSweep(rfqId, { sweep: true }))]);
        const won = [a, b].filter((r): r is { ok: Awaited<ReturnType<RfqClient['acceptSweep']>> } => 'ok' in r);
        assert.ok(won.length >= 1, JSON.stringify([a, b]));
        for (const r of [a, b]) if ('code' in r) assert.equal(r.code, 'RFQ_NOT_PENDING');
        // A second answer that succeeded names the same legs: it is the first one's replay.
        for (const r of won) assert.deepEqual(r.ok.quoteIds, won[0]!.ok.quoteIds);
        const rfq = await taker.client.getRfq(rfqId);
        assert.equal(rfq.status, 'QUOTED');
        assert.deepEqual(rfq.fills?.map((f) => f.quoteId), won[0]!.ok.quoteIds);
        assert.equal(baseFilled(rfq.fills!), ethUnits('3'));
        // One lock per leg, each the leg's quote amount plus its fee: nothing locked twice.
        const quotes = await Promise.all(rfq.fills!.map((f) => taker.client.getQuote(f.quoteId)));
        assert.equal(await lockedUsdc(taker.client), quotes.reduce((sum, q) => sum + usdcUnits(q.takerTotal), 0n));
      }
    });

    it('makers re-pricing while the sweep is taken: each leg is the version the selection read, and a leg is not re-priced after it', async () => {
      for (let round = 0; round < 5; round++) {
        const { taker, rfqId, quotes } = await sweepWithQuotes(4);
        // Each maker re-prices its quote over and over while the accept runs.
        let accepting = true;
        const requotes = quotes.map(async ({ maker }, i) => {
          const answers: string[] = [];
          for (let n = 1; accepting && n <= 20; n++) {
            const r = await outcome(maker.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: String(3000 + i + n) }, allOrNone: false }));
            answers.push('ok' in r ? 'ok' : r.code);
          }
          return answers;
        });
        const accepted = await outcome(taker.client.acceptSweep(rfqId, { sweep: true }));
        accepting = false;
        const answers = (await Promise.all(requotes)).flat();
        // A re-quote lost to the selection is refused with a stable code, never a 500.
        for (const a of answers) assert.ok(a === 'ok' || a === 'QUOTE_NOT_OPEN' || a === 'RFQ_NOT_PENDING' || a === 'AUCTION_CLOSED', a);
        if (!('ok' in accepted)) {
          // Every quote was mid re-price: the selection may come up short only as the contract says.
          assert.equal(accepted.code, 'QUOTE_NOT_ACCEPTABLE');
          continue;
        }
        const rfq = await taker.client.getRfq(rfqId);
        for (const fill of rfq.fills!) {
          const quote = await taker.client.getQuote(fill.quoteId);
          assert.equal(quote.status, 'SELECTED');
          // The leg moves what its quote (as now stored) says: the selection and the quote agree.
          assert.equal(quote.makerReceives.amount, fill.quoteQty, `leg ${fill.quoteId}`);
          assert.equal(quote.makerPays.amount, fill.baseQty, `leg ${fill.quoteId}`);
        }
        const legs = await Promise.all(rfq.fills!.map((f) => taker.client.getQuote(f.quoteId)));
        assert.equal(await lockedUsdc(taker.client), legs.reduce((sum, q) => sum + usdcUnits(q.takerTotal), 0n));
      }
    });

    it('makers cancelling while the sweep is taken: a quote is a leg or cancelled, never both', async () => {
      for (let round = 0; round < 5; round++) {
        const { taker, rfqId, quotes } = await sweepWithQuotes(5, '0.75');
        const cancels = quotes.filter((_, i) => i % 2 === 0).map(({ maker, quoteId }) => outcome(maker.client.cancelQuote(quoteId)));
        const accepted = await outcome(taker.client.acceptSweep(rfqId, { sweep: true }));
        const cancelled = await Promise.all(cancels);
        for (const c of cancelled) if ('code' in c) assert.equal(c.code, 'QUOTE_NOT_OPEN');
        const rfq = await taker.client.getRfq(rfqId);
        const legs = new Set((rfq.fills ?? []).map((f) => f.quoteId));
        for (const { quoteId } of quotes) {
          const status = (await taker.client.getQuote(quoteId)).status;
          if (legs.has(quoteId)) assert.equal(status, 'SELECTED', quoteId);
          else assert.ok(status === 'CANCELLED' || status === 'NOT_SELECTED' || status === 'SUBMITTED', `${quoteId} ${status}`);
        }
        if ('ok' in accepted) {
          assert.deepEqual([...legs], accepted.ok.quoteIds);
          assert.ok(baseFilled(rfq.fills!) >= ethUnits('1'), 'at least minFillQty');
        } else {
          assert.equal(accepted.code, 'QUOTE_NOT_ACCEPTABLE');
          assert.equal(rfq.status, 'PENDING');
          assert.equal(legs.size, 0);
        }
        const legQuotes = await Promise.all([...legs].map((id) => taker.client.getQuote(id)));
        assert.equal(await lockedUsdc(taker.client), legQuotes.reduce((sum, q) => sum + usdcUnits(q.takerTotal), 0n));
      }
    });
  });
}
