/** The benchmark's own PostgreSQL database: created fresh, dropped at the end. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface BenchDatabase {
  name: string;
  url: string;
  /** A small pool for the benchmark's own reads (lateness, statistics). */
  pool: pg.Pool;
  drop(): Promise<void>;
}

export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  const name = `bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 3 });
  pool.on('error', () => undefined);
  let dropped = false;
  return {
    name,
    url: url.toString(),
    pool,
    async drop() {
      if (dropped) return;
      dropped = true;
      await pool.end().catch(() => undefined);
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Backend pids serving the bench database (for CPU accounting), excluding our own session. */
export async function backendPids(pool: pg.Pool, database: string): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database]);
  return rows.map((r) => r.pid);
}

export interface DbCounters {
  xactCommit: number;
  xactRollback: number;
  tupInserted: number;
  tupUpdated: number;
  deadlocks: number;
}

export async function dbCounters(pool: pg.Pool, database: string): Promise<DbCounters> {
  // pg_stat_database is refreshed at most every stats interval; clear the snapshot so we read current values.
  const client = await pool.connect();
  try {
    await client.query('select pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ xact_commit: string; xact_rollback: string; tup_inserted: string; tup_updated: string; deadlocks: string }>(
      'select xact_commit, xact_rollback, tup_inserted, tup_updated, deadlocks from pg_stat_database where datname = $1',
      [database],
    );
    const row = rows[0]!;
    return {
      xactCommit: Number(row.xact_commit),
      xactRollback: Number(row.xact_rollback),
      tupInserted: Number(row.tup_inserted),
      tupUpdated: Number(row.tup_updated),
      deadlocks: Number(row.deadlocks),
    };
  } finally {
    client.release();
  }
}
