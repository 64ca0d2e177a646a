/**
 * The operator lists every account's `/v0` orders and withdrawals newest first (GET
 * /admin/v1/v0/orders, /admin/v1/v0/withdrawals), optionally by status; without these indexes each
 * console poll would sort the whole table. By account, the existing per-account indexes serve.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index v0_orders_newest on v0_orders (created_at desc, id desc);
    create index v0_orders_by_status on v0_orders (status, created_at desc, id desc);
    create index v0_withdrawals_newest on v0_withdrawals (created_at desc, id desc);
    create index v0_withdrawals_by_state on v0_withdrawals (state, created_at desc, id desc);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index v0_withdrawals_by_state;
    drop index v0_withdrawals_newest;
    drop index v0_orders_by_status;
    drop index v0_orders_newest;
  `.execute(db);
}
