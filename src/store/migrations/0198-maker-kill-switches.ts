/**
 * The maker's kill switches (DESIGN.md section 15):
 * - `maker_protections.frozen_ms`: a tripped setting re-arms itself this long after its trip
 *   (null: only the maker's reset lifts it, as before).
 * - `maker_cancel_all_after`: the dead man's switch, one row per armed maker. It lives in the store
 *   so that whichever node sweeps first fires it, also when the node that armed it is gone; the
 *   index keeps the every-250-ms question "is any due?" to an index probe.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table maker_protections add column frozen_ms int8 check (frozen_ms > 0);
    create table maker_cancel_all_after (
      maker_account_id uuid primary key references accounts(id),
      fires_at int8 not null,
      armed_at int8 not null
    );
    create index maker_cancel_all_after_due on maker_cancel_all_after (fires_at);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table maker_cancel_all_after;
    alter table maker_protections drop column frozen_ms;
  `.execute(db);
}
