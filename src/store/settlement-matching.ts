/**
 * The rows an observed settlement (permit2's `RfqSettled`, xchange's `XchangeSettled`) is matched
 * against inside the chain follower's step: the quote it names, then the RFQ and that quote locked
 * (RFQ first, as every use case locks them), and the maker's and tokens' on-chain addresses.
 */
import { lockQuote, lockRfq, type QuoteRow, type RfqRow } from './rfq-rows.ts';
import type { Tx } from './transaction.ts';

/** The quote (and its RFQ) whose `quote_hash` is `quoteHash` (lowercase); undefined when none. */
export async function quoteByHash(tx: Tx, quoteHash: string): Promise<{ id: string; rfq_id: string } | undefined> {
  return tx.selectFrom('quotes').select(['id', 'rfq_id']).where('quote_hash', '=', quoteHash).executeTakeFirst();
}

/** The RFQ of the xchange quote `quoteId`; undefined when there is no such quote settling by xchange. */
export async function xchangeQuoteRfq(tx: Tx, quoteId: string): Promise<{ rfq_id: string } | undefined> {
  return tx.selectFrom('quotes').select(['rfq_id']).where('id', '=', quoteId).where('settlement_mode', '=', 'xchange').executeTakeFirst();
}

/** The RFQ, then its quote, each row locked until the transaction ends (both must exist). */
export async function lockRfqThenQuote(tx: Tx, rfqId: string, quoteId: string): Promise<{ rfq: RfqRow; quote: QuoteRow }> {
  const rfq = await lockRfq(tx, rfqId);
  return { rfq, quote: await lockQuote(tx, quoteId) };
}

/** The on-chain address (null: none) of each of the listed `symbols`, by symbol. */
export async function tokenAddresses(tx: Tx, symbols: readonly string[]): Promise<Map<string, string | null>> {
  const rows = await tx.selectFrom('tokens').select(['symbol', 'address']).where('symbol', 'in', [...symbols]).execute();
  return new Map(rows.map((t) => [t.symbol, t.address]));
}
