/** A maker's delivery on a promised quote, as the chain showed it: one row a quote, written when its settlement is booked. */
import { sql, type Selectable } from 'kysely';
import type { PromisedDeliveriesTable, QuotesTable } from './schema.ts';
import type { Reader, Tx } from './transaction.ts';

export async function recordPromisedDelivery(tx: Tx, delivered: PromisedDeliveriesTable): Promise<void> {
  await tx.insertInto('promised_deliveries').values(delivered).execute();
}

/**
 * The SELECTED promised quotes with no delivery recorded that a transfer of exactly `amount` of
 * `token` from the maker at `fromAddress` could deliver, earliest window first (the caller checks
 * the window).
 */
export async function undeliveredPromisedQuotes(db: Reader, transfer: { fromAddress: string; token: string; amount: bigint }): Promise<Array<Selectable<QuotesTable>>> {
  return db
    .selectFrom('quotes')
    .innerJoin('accounts', 'accounts.id', 'quotes.maker_account_id')
    .selectAll('quotes')
    .where('quotes.status', '=', 'SELECTED')
    .where('quotes.settlement_mode', '=', 'promised')
    .where('accounts.address', '=', transfer.fromAddress)
    .where('quotes.maker_pays_token', '=', transfer.token)
    .where('quotes.maker_pays_amount', '=', transfer.amount)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('promised_deliveries').select(sql`1`.as('one')).whereRef('promised_deliveries.quote_id', '=', 'quotes.id'))))
    .orderBy('quotes.window_starts_at')
    .execute();
}
