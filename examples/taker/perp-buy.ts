/**
 * Buying (or selling) a perp with the client library, the way `npm run rfq -- buy` does it:
 * request quotes, take the best one with a venue order signed by your wallet, read the fill.
 *
 *   RFQ_URL=http://127.0.0.1:8080 RFQ_PRIVATE_KEY=0x... node examples/taker/perp-buy.ts 0.1 ETH-USDC-PERP [BUY|SELL]
 *
 * The wallet needs USDC margin at the venue. The venue's URL and the builder address come from
 * `GET /v1/rfq/network` (the embedded stack publishes both); elsewhere pass them to `PerpTaker.connect`.
 */
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { bestQuote } from '../../src/client/best-quote.ts';
import { PerpTaker } from '../../src/client/perp-taker.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import type { Side } from '../../src/client/types.ts';

const [size = '0.1', instrumentId = 'ETH-USDC-PERP', side = 'BUY'] = process.argv.slice(2);
const wallet = privateKeyToAccount(process.env.RFQ_PRIVATE_KEY as Hex);
const client = new RfqClient(process.env.RFQ_URL ?? 'http://127.0.0.1:8080');
await client.signIn(wallet);
const taker = await PerpTaker.connect(client, wallet);

// quoteLimit is required on a perp: here the venue's touch 1 % against us, times the size.
const quoteLimit = await taker.defaultLimit(instrumentId, side as Side, size);
const { rfqId, auctionEndsAt } = await client.createRfq({ instrumentId, side: side as Side, baseQty: size, quoteLimit, windowMs: 5_000 });
await new Promise((resolve) => setTimeout(resolve, Math.max(0, auctionEndsAt - Date.now() - 1_000)));
const quotes = (await client.rfqQuotes(rfqId)).items;
const best = bestQuote(quotes, side as Side, { now: Date.now(), quoteLimit, minRemainingMs: 200 });
if (!best) throw new Error(`no acceptable quote on ${rfqId}`);
// Approves the builder fee from this (main) wallet if needed, signs the IOC with the SDK, accepts.
await taker.accept({ id: rfqId, instrumentId, side: side as Side }, best);

for (;;) {
  const rfq = await client.getRfq(rfqId);
  if (rfq.status === 'SETTLED' || rfq.status === 'FAILED' || rfq.status === 'CANCELLED') {
    // The fill is on the executed quote, never on the RFQ.
    const quote = rfq.selectedQuoteId ? await client.getQuote(rfq.selectedQuoteId) : null;
    console.log(`${rfq.status} ${rfqId}${rfq.failureCode ? ` ${rfq.failureCode}` : ''}: filled ${quote?.perpFilledSize ?? '-'} at ${quote?.perpFillAvgPx ?? '-'}`);
    process.exitCode = rfq.status === 'SETTLED' ? 0 : 3;
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
}
