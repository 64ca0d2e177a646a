/**
 * A `spotSend` to the omnibus seen in its ledger updates: credited once per hash as a DEPOSIT on
 * the `VENUE` rail to the sender's account, created if new (the signed transfer proves the sender
 * holds that address). Venue precision beyond the ledger's is rounded down; the dust stays with
 * the omnibus.
 */
import { getAddress } from 'viem';
import { ensureAccount } from '../../store/accounts.ts';
import { postMovement } from '../../store/ledger.ts';
import { insertVenueDeposit, venueDepositCredited } from '../../store/venue-deposits.ts';
import type { V0Deps } from './v0-deps.ts';

export async function creditVenueDeposit(deps: V0Deps, deposit: { hash: string; from: string; token: string; amount: bigint }): Promise<boolean> {
  if (deposit.amount <= 0n) return false;
  const now = deps.service.clock.now();
  const address = getAddress(deposit.from);
  return deps.service.db.transaction().execute(async (tx) => {
    if (await venueDepositCredited(tx, deposit.hash)) return false;
    const accountId = await ensureAccount(tx, address, deps.service.ids.uuid(), now);
    const movementId = deps.service.ids.uuid();
    const base = { rail: 'VENUE' as const, source: 'DEPOSIT' as const, token: deposit.token };
    const postings = [
      { ...base, book: 'user' as const, accountId, delta: deposit.amount },
      { ...base, book: 'custody' as const, delta: -deposit.amount },
    ];
    await postMovement(tx, { movementId, kind: 'v0_deposit', reference: deposit.hash, postings, postingIds: postings.map(() => deps.service.ids.uuid()), at: now });
    await insertVenueDeposit(tx, { hash: deposit.hash, account_id: accountId, from_address: address, token: deposit.token, amount: deposit.amount, movement_id: movementId, created_at: now });
    return true;
  });
}
