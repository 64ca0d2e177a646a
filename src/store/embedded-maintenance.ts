/**
 * Autovacuum's work for the embedded store. PGlite runs PostgreSQL as one backend with no
 * background processes, so nothing ever vacuums or analyzes it (checked: 20,000 dead rows and no
 * statistics after 70 s with `autovacuum` on). Without it, every re-quote's old row version and
 * every pruned outbox row stays on disk for good, and the planner never learns a table's size:
 * with no statistics, a join that should start from an empty table can start from the biggest
 * (the protection sweep did, protection-sweep.ts). On PostgreSQL the server's autovacuum does this
 * and the node never calls it.
 *
 * The rule is autovacuum's own, with PostgreSQL's default settings, from the counters the store
 * keeps in `pg_stat_user_tables`:
 * - VACUUM (with ANALYZE) when dead rows exceed 50 + 20% of the table's rows, or rows inserted
 *   since the last vacuum exceed 1,000 + 20% (which keeps an append-mostly table's visibility
 *   map current);
 * - otherwise ANALYZE when rows changed since the last analyze exceed 50 + 10%.
 * One table per statement, each outside any transaction (VACUUM cannot run in one). On PGlite a
 * statement holds the one connection while it runs, so a round does only the tables that are due:
 * running often keeps each small.
 */
import { sql } from 'kysely';
import type { Db } from './transaction.ts';

/** autovacuum_vacuum_threshold / _scale_factor, autovacuum_vacuum_insert_*, autovacuum_analyze_* (PostgreSQL's defaults). */
const VACUUM_THRESHOLD = 50;
const VACUUM_SCALE = 0.2;
const INSERT_THRESHOLD = 1000;
const INSERT_SCALE = 0.2;
const ANALYZE_THRESHOLD = 50;
const ANALYZE_SCALE = 0.1;

export interface TableCounters {
  table: string;
  /** `pg_class.reltuples`: -1 until the table is first vacuumed or analyzed. */
  rows: number;
  deadRows: number;
  insertedSinceVacuum: number;
  changedSinceAnalyze: number;
}

export type MaintenanceAction = 'vacuum' | 'analyze';

/** What autovacuum would do to the table now, or null. */
export function maintenanceDue(t: TableCounters): MaintenanceAction | null {
  const rows = Math.max(t.rows, 0);
  if (t.deadRows > VACUUM_THRESHOLD + VACUUM_SCALE * rows || t.insertedSinceVacuum > INSERT_THRESHOLD + INSERT_SCALE * rows) return 'vacuum';
  if (t.changedSinceAnalyze > ANALYZE_THRESHOLD + ANALYZE_SCALE * rows) return 'analyze';
  return null;
}

/** The tables' counters, this backend's own latest writes included (flushed first: the embedded store's one backend is also its writer). */
export async function readTableCounters(db: Db): Promise<TableCounters[]> {
  await sql`select pg_stat_force_next_flush()`.execute(db);
  const { rows } = await sql<{ table: string; rows: number; dead: number; inserted: number; changed: number }>`
    select s.relname as table, c.reltuples::float8 as rows, s.n_dead_tup::float8 as dead,
           s.n_ins_since_vacuum::float8 as inserted, s.n_mod_since_analyze::float8 as changed
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.schemaname = current_schema()
    order by s.relname
  `.execute(db);
  return rows.map((r) => ({ table: r.table, rows: Number(r.rows), deadRows: Number(r.dead), insertedSinceVacuum: Number(r.inserted), changedSinceAnalyze: Number(r.changed) }));
}

/** One round: vacuums or analyzes each table that is due, one statement each; answers what it did. */
export async function maintainTables(db: Db): Promise<Array<{ table: string; action: MaintenanceAction }>> {
  const done: Array<{ table: string; action: MaintenanceAction }> = [];
  for (const counters of await readTableCounters(db)) {
    const action = maintenanceDue(counters);
    if (action === null) continue;
    if (action === 'vacuum') await sql`vacuum (analyze) ${sql.table(counters.table)}`.execute(db);
    else await sql`analyze ${sql.table(counters.table)}`.execute(db);
    done.push({ table: counters.table, action });
  }
  return done;
}
