/**
 * Two lanes to the database: request handling, and the node's background work
 * (auction closes, the chain follower, the custody broadcaster, the outbox dispatcher, deadline
 * sweeps). Under full HTTP load the background lane must still get connections at once, or
 * deposits go uncredited and auctions close late. The lane travels with the async context
 * (AsyncLocalStorage), so timers and promises a background loop starts stay in its lane without
 * any signature changing; the pools read it when a connection is asked for:
 * - PostgreSQL (`reservingPool`): requests may hold at most `size - reserved` connections at
 *   once; the reserved ones are the background lane's, which may also use any free one;
 * - PGlite (one connection, pglite-pool.ts): a waiting background holder goes before waiting
 *   requests (background passes are bounded batches, so requests still interleave).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';

const lane = new AsyncLocalStorage<'background'>();

/** Runs `work` (and everything it schedules) in the background lane. */
export function inBackgroundLane<T>(work: () => T): T {
  return lane.run('background', work);
}

export function isBackgroundLane(): boolean {
  return lane.getStore() === 'background';
}

/** Connections kept for the background lane out of a pool of `size`: a quarter, at least one (none of a pool of one). */
export function reservedForBackground(size: number): number {
  return size <= 1 ? 0 : Math.max(1, Math.floor(size / 4));
}

/** Wraps a pg pool so that requests never take the connections reserved for background work. */
export function reservingPool(pool: pg.Pool, size: number): pg.Pool {
  const forRequests = size - reservedForBackground(size);
  let held = 0;
  const waiters: Array<() => void> = [];
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const requestConnect = async (): Promise<pg.PoolClient> => {
    if (held >= forRequests) await new Promise<void>((resolve) => waiters.push(resolve));
    held++;
    let client: pg.PoolClient;
    try {
      client = await connect();
    } catch (error) {
      leave();
      throw error;
    }
    const release = client.release.bind(client);
    let released = false;
    client.release = (error?: Error | boolean) => {
      if (!released) {
        released = true;
        leave();
      }
      return release(error);
    };
    return client;
  };
  const leave = () => {
    held--;
    waiters.shift()?.();
  };
  // Kysely's PostgresDialect only calls connect() (promise form) and end().
  return new Proxy(pool, {
    get(target, property, receiver) {
      if (property === 'connect') return () => (isBackgroundLane() ? connect() : requestConnect());
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
