/**
 * Where each chain follower stands: the last block it processed (number, hash, timestamp), written
 * in the same transaction as what it did with that block's logs, so a restart neither skips nor
 * repeats a block. The hash detects a reorganisation deeper than the confirmation depth.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table chain_cursors (
      name text primary key,
      block_number int8 not null,
      block_hash text not null,
      block_timestamp int8 not null,
      updated_at int8 not null
    )
  `.execute(db);
}
