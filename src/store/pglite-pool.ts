/**
 * Presents one PGlite instance as the small slice of the `pg.Pool` interface that Kysely's
 * PostgresDialect uses, so both stores share one dialect, one SQL and one set of migrations.
 *
 * PGlite is a single connection: a connection is handed out to one holder at a time (a FIFO
 * mutex), so a transaction's statements never interleave with another caller's.
 */
import type { PGlite } from '@electric-sql/pglite';
import { isBackgroundLane } from './work-lane.ts';

interface PoolClientLike {
  query(sql: string, parameters: readonly unknown[]): Promise<{ command: string; rowCount: number; rows: unknown[] }>;
  release(): void;
}

const COMMAND = /^\s*(?:with\b[\s\S]*?\)\s*)?(insert|update|delete|merge|select)\b/i;

export class PGlitePool {
  readonly #pg: PGlite;
  #busy = false;
  readonly #waiters: Array<() => void> = [];
  readonly #backgroundWaiters: Array<() => void> = [];

  constructor(pg: PGlite) {
    this.#pg = pg;
  }

  async connect(): Promise<PoolClientLike> {
    // The background lane waits in front of requests (work-lane.ts).
    if (this.#busy) await new Promise<void>((resolve) => (isBackgroundLane() ? this.#backgroundWaiters : this.#waiters).push(resolve));
    this.#busy = true;
    let released = false;
    return {
      query: async (sql, parameters) => {
        const command = (COMMAND.exec(sql)?.[1] ?? '').toUpperCase();
        if (parameters.length === 0) {
          // Parameterless text may hold several statements (migrations); only the simple protocol runs those.
          const results = await this.#pg.exec(sql);
          const last = results[results.length - 1];
          return { command, rowCount: last?.affectedRows ?? 0, rows: last?.rows ?? [] };
        }
        const result = await this.#pg.query(sql, parameters as unknown[]);
        return { command, rowCount: result.affectedRows ?? 0, rows: result.rows };
      },
      release: () => {
        if (released) return;
        released = true;
        const next = this.#backgroundWaiters.shift() ?? this.#waiters.shift();
        if (next) next();
        else this.#busy = false;
      },
    };
  }

  async end(): Promise<void> {
    await this.#pg.close();
  }
}
