/**
 * One signed venue action per owner and kind (an order's `order`, its `cancel`, a withdrawal's
 * `spotSend`), enforced by the store: storing a second one does nothing (on conflict), so a
 * placement and a pass that both signed the same order can never both send it. It replaces the
 * plain lookup index on the same columns. A resend reuses the stored row, never adds one.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create unique index venue_actions_one_per_owner on venue_actions (owner_id, kind);
    drop index venue_actions_by_owner;
  `.execute(db);
}
