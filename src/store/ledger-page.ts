/**
 * One page of an account's ledger postings, newest first, keyset-paged by (created_at, posting_id)
 * so a page costs the same however deep it is.
 */
import type { Reader } from './transaction.ts';

export interface PostingsAfter {
  at: number;
  id: string;
}

/** Up to `limit` postings of the account before `after` (null: from the newest), each with its movement's reference. */
export async function accountPostings(db: Reader, accountId: string, limit: number, after: PostingsAfter | null) {
  let query = db
    .selectFrom('ledger_postings as p')
    .innerJoin('ledger_movements as m', 'm.movement_id', 'p.movement_id')
    .select(['p.posting_id', 'p.token', 'p.rail', 'p.delta', 'p.source', 'p.created_at', 'm.reference'])
    .where('p.account_id', '=', accountId)
    .orderBy('p.created_at', 'desc')
    .orderBy('p.posting_id', 'desc')
    .limit(limit);
  if (after) {
    query = query.where((eb) => eb.or([eb('p.created_at', '<', after.at), eb.and([eb('p.created_at', '=', after.at), eb('p.posting_id', '<', after.id)])]));
  }
  return query.execute();
}
