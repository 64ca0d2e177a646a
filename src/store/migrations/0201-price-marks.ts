/**
 * Marks of the consolidated mid price per instrument (`price_marks`), written by the nodes from
 * the makers' ladders at most once a second while the mid changes, and kept 30 days (the longest
 * scorecard window): the market's move over a fade or a late relay is read from them (DESIGN.md
 * section 15). Two nodes writing the same second keep one row.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table price_marks (
      instrument_id text not null,
      at int8 not null,
      mid numeric(78,0) not null check (mid > 0),
      primary key (instrument_id, at)
    );
    create index price_marks_by_age on price_marks (at);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table price_marks;`.execute(db);
}
