/** An instrument's last trade: the winning quote of its most recent settled RFQ. */
import type { Reader } from './transaction.ts';

/**
 * The side of the instrument's most recent settled RFQ and its winning quote's amounts, read
 * through `rfqs_by_instrument` (newest first, one row); undefined when it never traded.
 */
export async function lastSettledTrade(db: Reader, instrumentId: string) {
  return db
    .selectFrom('rfqs')
    .innerJoin('quotes', 'quotes.id', 'rfqs.selected_quote_id')
    .select(['rfqs.side', 'quotes.maker_pays_amount', 'quotes.maker_receives_amount'])
    .where('rfqs.instrument_id', '=', instrumentId)
    .where('rfqs.status', '=', 'SETTLED')
    .orderBy('rfqs.created_at', 'desc')
    .orderBy('rfqs.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
