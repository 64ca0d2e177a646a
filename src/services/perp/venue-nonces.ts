/**
 * The (signer, nonce) claim of signed venue actions (DESIGN.md 9.2-9.3): each pair is claimed
 * once, across the makers' quotes and the takers' accepts, so a signed action is never used
 * twice and a reused nonce does nothing at all. The table is `venue_nonce_claims` (migration
 * 0020); maker quotes claim theirs inside `rfq_write_perp_quote`, in the quote's transaction.
 */
import type { Tx } from '../../store/transaction.ts';

export type VenueNoncePurpose = 'makerOrder' | 'makerCancel' | 'takerOrder';

/**
 * Claims (signer, nonce) inside `trx`; true when this call claimed it, false when it was already
 * claimed (by anyone, for anything). The signer is stored lower-case. Rolls back with `trx`.
 */
export async function claimVenueNonce(
  trx: Tx,
  signer: string,
  nonce: number,
  claim: { purpose?: VenueNoncePurpose; quoteId?: string | null; at?: number } = {},
): Promise<boolean> {
  const inserted = await trx
    .insertInto('venue_nonce_claims')
    .values({
      signer: signer.toLowerCase(),
      nonce,
      claimed_at: claim.at ?? Date.now(),
      purpose: claim.purpose ?? 'takerOrder',
      quote_id: claim.quoteId ?? null,
    })
    .onConflict((oc) => oc.columns(['signer', 'nonce']).doNothing())
    .returning('nonce')
    .executeTakeFirst();
  return inserted !== undefined;
}
