/** Accounts: one per address, created on first sight (sign-in, maker registration, an operator's adjustment). */
import type { Reader, Tx } from './transaction.ts';

/** The id of the account of `address` (EIP-55, as accounts keep it); null when it has none. */
export async function accountIdByAddress(db: Reader, address: string): Promise<string | null> {
  const row = await db.selectFrom('accounts').select('id').where('address', '=', address).executeTakeFirst();
  return row?.id ?? null;
}

/** The address of an account that exists (a missing one throws). */
export async function addressOfAccount(db: Reader, accountId: string): Promise<string> {
  return (await db.selectFrom('accounts').select('address').where('id', '=', accountId).executeTakeFirstOrThrow()).address;
}

/** Locks the account's row until the transaction ends: its requests that may hold one at a time wait on it. */
export async function lockAccountRow(tx: Tx, accountId: string): Promise<void> {
  await tx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
}

/** The account of `address`, created with `newId` if it has none yet; its id either way. */
export async function ensureAccount(tx: Tx, address: string, newId: string, now: number): Promise<string> {
  await tx.insertInto('accounts').values({ id: newId, address, created_at: now }).onConflict((oc) => oc.column('address').doNothing()).execute();
  return (await tx.selectFrom('accounts').select('id').where('address', '=', address).executeTakeFirstOrThrow()).id;
}
