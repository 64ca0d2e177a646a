/**
 * The rows behind the cap on a taker's open (PENDING) RFQs (src/services/rfq/create-rfq.ts):
 * the account row locked so that one account's creations count one after another, and the count.
 */
import type { Tx } from './transaction.ts';

/**
 * Locks the account row FOR NO KEY UPDATE, so it does not wait on the share lock the rfqs
 * foreign key takes; nothing when there is no such account.
 */
export async function lockAccountForRfqs(tx: Tx, accountId: string): Promise<void> {
  await tx.selectFrom('accounts').select('id').where('id', '=', accountId).forNoKeyUpdate().executeTakeFirst();
}

/** How many PENDING RFQs the account has. */
export async function pendingRfqCount(tx: Tx, accountId: string): Promise<number> {
  const { open } = await tx.selectFrom('rfqs').select((eb) => eb.fn.countAll<string>().as('open')).where('account_id', '=', accountId).where('status', '=', 'PENDING').executeTakeFirstOrThrow();
  return Number(open);
}
