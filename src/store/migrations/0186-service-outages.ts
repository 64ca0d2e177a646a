/**
 * Service outages (src/services/settlement/service-outages.ts): when the service as a whole was
 * last seen alive (`service_liveness`, one row every node's heartbeat moves forward), and the
 * spans in which no node was (`service_outages`, written by the first node to start after one).
 * A permit2 maker whose settlement window overlapped an outage could not relay its permit, so its
 * failure is not counted toward a suspension.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table service_liveness (
      id int primary key default 1 check (id = 1),
      alive_at int8 not null
    );
    create table service_outages (
      started_at int8 not null,
      ended_at int8 not null,
      primary key (started_at, ended_at)
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table service_outages;
    drop table service_liveness;
  `.execute(db);
}
