/**
 * Opens the store: a real PostgreSQL server through `pg`, or embedded PGlite (WASM Postgres)
 * in a directory or in memory. Both are driven by the same Kysely dialect and the same SQL.
 *
 * Type parsing is pinned the same on both: NUMERIC (amounts, NUMERIC(78,0)) -> bigint and
 * INT8 (UnixMillis, sequence numbers) -> number, so repositories never see driver differences.
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { PGlitePool } from './pglite-pool.ts';
import { PgListener } from './pg-listener.ts';
import { reservingPool } from './work-lane.ts';
import type { DB } from './schema.ts';

const NUMERIC_OID = 1700;
const INT8_OID = 20;

export type StoreLocation =
  | { kind: 'postgres'; url: string; poolSize?: number }
  /** `from`: start from a dump of another PGlite store (`Store.dump`) instead of an empty database. */
  | { kind: 'pglite'; dataDir: string | null; from?: Blob };

export interface Store {
  readonly db: Kysely<DB>;
  readonly kind: 'postgres' | 'pglite';
  /** PostgreSQL: where it is, for connections of the node's own elsewhere (the auction thread). */
  readonly url?: string;
  /** Subscribes to a NOTIFY channel; returns an unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /** Sends each [channel, payload] to every listener of the store (PostgreSQL: NOTIFY, after commit and outside any transaction). */
  notify(messages: ReadonlyArray<readonly [string, string]>): Promise<void>;
  /** True when the store answers a trivial query. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
  /** PGlite only: the whole database as a tarball another store can start `from` (a migrated template). */
  dump?(): Promise<Blob>;
}

const parseNumeric = (text: string): bigint => BigInt(text);
const parseInt8 = (text: string): number => Number(text);

export async function openStore(location: StoreLocation): Promise<Store> {
  return location.kind === 'postgres' ? openPostgres(location.url, location.poolSize ?? 10) : openPGlite(location.dataDir, location.from);
}

async function openPostgres(url: string, poolSize: number): Promise<Store> {
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === NUMERIC_OID) return parseNumeric;
      if (oid === INT8_OID) return parseInt8;
      return pg.types.getTypeParser(oid, format);
    },
  };
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types: types as pg.CustomTypesConfig });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries in flight see their own error.
  });
  // Background work keeps its own share of the connections under request load (work-lane.ts).
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: reservingPool(pool, poolSize) }) });
  const listener = new PgListener(url);
  return {
    db,
    kind: 'postgres',
    url,
    listen: (channel, onPayload) => listener.listen(channel, onPayload),
    async notify(messages) {
      const channels = messages.map(([channel]) => channel);
      const payloads = messages.map(([, payload]) => payload);
      await sql`select count(pg_notify(c, p)) from unnest(${channels}::text[], ${payloads}::text[]) as t(c, p)`.execute(db);
    },
    ping: () => pingStore(db),
    async close() {
      await listener.close();
      await db.destroy();
    },
  };
}

async function openPGlite(dataDir: string | null, from: Blob | undefined): Promise<Store> {
  const instance = await PGlite.create(dataDir ?? undefined, {
    parsers: { [NUMERIC_OID]: parseNumeric, [INT8_OID]: parseInt8 },
    ...(from ? { loadDataDir: from } : {}),
  });
  const pool = new PGlitePool(instance);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: pool as unknown as pg.Pool }) });
  // Every connection to an embedded store is in this process (PGlite cannot be opened twice), so
  // its notifications are delivered here without a statement (`notify`).
  const channels = new Map<string, Set<(payload: string) => void>>();
  return {
    db,
    kind: 'pglite',
    async listen(channel, onPayload) {
      const listeners = channels.get(channel) ?? new Set();
      channels.set(channel, listeners);
      const listener = (payload: string) => onPayload(payload);
      listeners.add(listener);
      return async () => {
        listeners.delete(listener);
      };
    },
    async notify(messages) {
      // After the caller's own continuation, as a notification from the database would arrive.
      await new Promise((resolve) => setImmediate(resolve));
      for (const [channel, payload] of messages) {
        for (const listener of channels.get(channel) ?? []) {
          try {
            listener(payload);
          } catch {
            // a listener's failure is its own: the others still hear
          }
        }
      }
    },
    ping: () => pingStore(db),
    dump: () => instance.dumpDataDir('none'),
    async close() {
      await db.destroy();
    },
  };
}

async function pingStore(db: Kysely<DB>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
