/**
 * A promised payout that ended without paying (REVERTED, CANCELLED, UNRESOLVED) may be queued again
 * by the operator, so a quote may now have several payout transfers, but never two live ones: at
 * most one queued, in flight or confirmed payout per quote (a retry racing another, or a retry of
 * a paid payout, hits this index). Withdrawals keep one transfer per withdrawal ever.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index custody_transfers_transfer_owner;
    create unique index custody_transfers_withdrawal_owner on custody_transfers (owner_id) where purpose = 'withdrawal';
    create unique index custody_transfers_live_payout on custody_transfers (owner_id) where purpose = 'payout' and status in ('QUEUED', 'SIGNED', 'SENT', 'CONFIRMED');
  `.execute(db);
}
