/** NOTIFY dispatchers once per statement that writes the outbox; delivered only on commit. */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function rfq_outbox_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('rfq_outbox', '');
      return null;
    end $$;
    create trigger outbox_notify after insert on outbox for each statement execute function rfq_outbox_notify();
  `.execute(db);
}
