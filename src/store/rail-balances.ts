/** One account's balances on one rail with their tokens' decimals, as a balances answer formats them. */
import type { Rail } from '../domain/ledger/index.ts';
import type { Reader } from './transaction.ts';

/** The account's balance rows on `rail`, in token order, each with its token's decimals. */
export async function balancesOnRail(db: Reader, accountId: string, rail: Rail) {
  return db
    .selectFrom('balances')
    .innerJoin('tokens', 'tokens.symbol', 'balances.token')
    .select(['balances.token', 'balances.available', 'balances.locked', 'tokens.decimals'])
    .where('balances.account_id', '=', accountId)
    .where('balances.rail', '=', rail)
    .orderBy('balances.token')
    .execute();
}
