/**
 * The system under simulation: one or two real service nodes on one real store (an in-process
 * PGlite that outlives the node, so a restarted node finds exactly what was committed; or a fresh
 * PostgreSQL database that each node start connects to anew), each
 * on a fixed loopback port so clients and their WebSocket sessions reach a restarted node where
 * they left it. The service clock is the simulation's: wall time plus an offset the driver moves
 * within the signing skew.
 */
import { startNode, generateSecretKey, type RunningNode } from '../../src/runtime/node.ts';
import { AdminClient } from '../../src/client/admin-client.ts';
import type { Clock } from '../../src/services/deps.ts';
import { openStore, type Store, type StoreLocation } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { getAddress } from 'viem';
import { createTestDatabase, type Backend, type TestDatabase } from '../../test/helpers/backends.ts';
import { ADMIN_TOKEN, seedReferenceData } from '../../test/helpers/harness.ts';
import { freePort } from '../../test/helpers/embedded-node.ts';
import { SimChain } from './chain.ts';
import { PERP_INSTRUMENT, SIM_PERP_EXECUTION, SimVenue } from './venue.ts';
import { SIM_PRICE_STALE_MS } from './prices.ts';
import { within } from './watchdog.ts';

/** Token addresses for the reference data: withdrawals need a listed on-chain address. */
const TOKEN_ADDRESSES = {
  USDC: '0x00000000000000000000000000000000000a0001',
  ETH: '0x00000000000000000000000000000000000a0002',
  BTC: '0x00000000000000000000000000000000000a0003',
};

/** A node that has not started or stopped in this long is stuck (a start takes a second or two, a stop less). */
const NODE_START_STOP_MS = 60_000;

let template: Promise<Blob> | null = null;

/** A migrated empty PGlite database, made once per process: migrating one takes most of a minute. */
function migratedTemplate(): Promise<Blob> {
  template ??= (async () => {
    const store = await openStore({ kind: 'pglite', dataDir: null });
    await migrateToLatest(store.db);
    const dump = await store.dump!();
    await store.close();
    return dump;
  })();
  return template;
}

export class SimClock implements Clock {
  offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
}

interface NodeSlot {
  name: string;
  port: number;
  node: RunningNode | null;
  /** When the node last started (wall ms): its in-memory state (the price book) begins there. */
  startedAt: number;
}

export class SimStack {
  readonly clock = new SimClock();
  readonly backend: Backend;
  /** The chain the nodes settle on, when the run simulates one. */
  readonly chain: SimChain | null;
  /** The perp venue the nodes execute on, when the run simulates one. */
  readonly venue: SimVenue | null;
  readonly #admins: AdminClient[];
  readonly #slots: NodeSlot[];
  readonly #location: StoreLocation | Store;
  /** PGlite: the one store every node shares (probed when a run stalls). */
  readonly #store: Store | null;
  readonly #secretKey = generateSecretKey();
  readonly #cleanup: () => Promise<void>;
  /**
   * Set when the stack starts closing. A run abandoned by its watchdog keeps going against the
   * stack (a restart it was in the middle of): a node it starts after that would outlive the run,
   * its listener open and its connections cut when the database is dropped.
   */
  #closing = false;
  /** Starts and stops under way (the run's own), awaited by `close` so none finishes after it. */
  readonly #inFlight = new Set<Promise<unknown>>();

  private constructor(backend: Backend, location: StoreLocation | Store, slots: NodeSlot[], chain: SimChain | null, venue: SimVenue | null, cleanup: () => Promise<void>, store: Store | null) {
    this.backend = backend;
    this.#store = store;
    this.chain = chain;
    this.venue = venue;
    this.#location = location;
    this.#slots = slots;
    this.#cleanup = cleanup;
    this.#admins = slots.map((slot) => new AdminClient(`http://127.0.0.1:${slot.port}`, ADMIN_TOKEN));
  }

  /** The operator surface on a running node (the first one up). */
  get admin(): AdminClient {
    const index = this.#slots.findIndex((s) => s.node !== null);
    if (index < 0) throw new Error('no node is running');
    return this.#admins[index]!;
  }

  static async start(backend: Backend, settings: Record<string, number>, options: { chain?: boolean; venue?: boolean; seed?: number } = {}): Promise<SimStack> {
    const chain = options.chain ? await SimChain.start() : null;
    const venue = options.venue ? await SimVenue.start(options.seed ?? 1) : null;
    let location: StoreLocation | Store;
    let cleanup: () => Promise<void>;
    let shared: Store | null = null;
    if (backend === 'pglite') {
      // A stopping node closes its store; this one must survive the node (as a database outlives a
      // crashed process), so the node gets a view whose close does nothing. (A PGlite on a data
      // directory would do too, but opening and migrating one takes over a minute here.)
      const store = await openStore({ kind: 'pglite', dataDir: null, from: await migratedTemplate() });
      shared = store;
      location = Object.assign(Object.create(store) as Store, { close: async () => undefined });
      // The chain and the venue first: a store that never closes must not leave anvil running.
      cleanup = async () => {
        await chain?.close();
        await venue?.close();
        await store.close();
      };
    } else {
      const database: TestDatabase = await createTestDatabase('postgres');
      location = database.location;
      cleanup = async () => {
        await chain?.close();
        await venue?.close();
        await database.drop();
      };
    }
    // A second node needs a store another node can open: PostgreSQL only.
    const slots: NodeSlot[] = [{ name: 'A', port: await freePort(), node: null, startedAt: 0 }];
    if (backend === 'postgres') slots.push({ name: 'B', port: await freePort(), node: null, startedAt: 0 });
    const stack = new SimStack(backend, location, slots, chain, venue, cleanup, shared);
    for (let i = 0; i < slots.length; i++) await stack.startNode(i);
    await seedReferenceData(stack.admin, chain ? chain.test.tokenAddresses : TOKEN_ADDRESSES);
    if (venue) await stack.admin.putInstrument(PERP_INSTRUMENT, { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 20, minQuoteNotional: '10' });
    await stack.admin.putSettings(settings);
    return stack;
  }

  get nodeCount(): number {
    return this.#slots.length;
  }

  urlOf(index: number): string {
    return `http://127.0.0.1:${this.#slots[index]!.port}`;
  }

  startedAt(index: number): number {
    return this.#slots[index]!.startedAt;
  }

  isRunning(index: number): boolean {
    return this.#slots[index]?.node != null;
  }

  running(): RunningNode[] {
    return this.#slots.flatMap((s) => (s.node ? [s.node] : []));
  }

  async startNode(index: number): Promise<void> {
    const slot = this.#slots[index]!;
    if (this.#closing) throw new Error(`node ${slot.name} not started: the stack is closing`);
    if (slot.node) return;
    await this.#tracked(this.#start(slot));
  }

  async #tracked<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work);
    try {
      return await work;
    } finally {
      this.#inFlight.delete(work);
    }
  }

  async #start(slot: NodeSlot): Promise<void> {
    slot.startedAt = Date.now();
    const starting = startNode({
      store: this.#location,
      port: slot.port,
      adminToken: ADMIN_TOKEN,
      secretKey: this.#secretKey,
      clock: this.clock,
      rateLimit: { perKeyPerSec: 100_000, perSourcePerSec: 100_000 },
      logLevel: 'fatal',
      ws: { priceStaleMs: SIM_PRICE_STALE_MS },
      ...(this.chain ? { chain: this.chain.nodeSettings } : {}),
      ...(this.venue ? { venue: this.venue.nodeSettings, perpExecution: SIM_PERP_EXECUTION } : {}),
    });
    const started = await within(starting, NODE_START_STOP_MS);
    if (!started) {
      // Closed if it ever finishes starting: nothing of it may outlive the run.
      void this.#tracked(starting.then((node) => node.close())).catch(() => undefined);
      throw new Error(`node ${slot.name} did not start within ${NODE_START_STOP_MS / 1000} s`);
    }
    slot.node = started.value;
  }

  /**
   * Stops a node as a process stop would (in-flight work finishes first). One that does not stop
   * in time (its close waits on work that never ends) has its connections cut and is reported.
   */
  async stopNode(index: number): Promise<void> {
    const slot = this.#slots[index]!;
    const node = slot.node;
    slot.node = null;
    if (!node) return;
    if (await within(this.#tracked(node.close()), NODE_START_STOP_MS)) return;
    const waitingFor = node.closing;
    node.app.server.closeAllConnections();
    // Its listener too: a node left listening keeps the process (a test file's) alive.
    node.app.server.close();
    throw new Error(`node ${slot.name} did not stop within ${NODE_START_STOP_MS / 1000} s (its close was waiting for: ${waitingFor ?? 'nothing named'})`);
  }

  /** Stops everything, whatever hangs; returns what did not stop (nothing when all is well). */
  async close(): Promise<string[]> {
    const problems: string[] = [];
    const problem = (error: unknown) => problems.push(error instanceof Error ? error.message : String(error));
    this.#closing = true;
    // A start or stop under way (the abandoned run's) ends first, so every node that will ever
    // run is stopped before the database goes. Each is bounded by NODE_START_STOP_MS itself.
    const settled = () => within(Promise.allSettled(this.#inFlight), NODE_START_STOP_MS);
    if (!(await settled())) problems.push(`a start or stop of the run did not end within ${NODE_START_STOP_MS / 1000} s`);
    for (let i = 0; i < this.#slots.length; i++) await this.stopNode(i).catch(problem);
    // A close that outlasted its bound is still waited for (bounded): the drop would cut its connections.
    if (!(await settled())) problems.push(`a node's close did not end within ${(2 * NODE_START_STOP_MS) / 1000} s`);
    const cleanup = await within(this.#cleanup().then(() => null, (error: unknown) => error), NODE_START_STOP_MS);
    if (!cleanup) problems.push(`the store, chain or venue did not close within ${NODE_START_STOP_MS / 1000} s`);
    else if (cleanup.value !== null) problem(cleanup.value);
    return problems;
  }

  /**
   * The last seq each of an account's topics has committed (its `event_seqs` rows), read from the
   * store itself: beside a session's last delivered seq, a finding about a stale snapshot tells a
   * frame the session never got (committed beyond it) from a snapshot that was never pushed.
   */
  async committedSeqs(address: string): Promise<Record<string, number>> {
    // PostgreSQL: a connection of its own (each node's store is its own); PGlite: the shared store.
    const store = this.#store ?? (await openStore({ ...(this.#location as Extract<StoreLocation, { kind: 'postgres' }>), poolSize: 1 }));
    try {
      const rows = await store.db
        .selectFrom('event_seqs as s')
        .innerJoin('accounts as a', 'a.id', 's.account_id')
        .select(['s.topic', 's.last_seq'])
        .where('a.address', '=', getAddress(address))
        .orderBy('s.topic')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.topic, Number(r.last_seq)]));
    } finally {
      if (store !== this.#store) await store.close();
    }
  }

  /**
   * What a stalled run's report says about the stack: each node's readiness, whether the shared
   * PGlite store answers (a transaction holding its one connection forever stops everything
   * else), and the chain's head.
   */
  async diagnose(): Promise<string> {
    const parts: string[] = [];
    for (const [i, slot] of this.#slots.entries()) {
      if (!slot.node) {
        parts.push(`node ${slot.name} down`);
        continue;
      }
      const ready = await fetch(`${this.urlOf(i)}/readyz`, { signal: AbortSignal.timeout(5000) }).then(async (r) => `${r.status} ${(await r.text()).slice(0, 300)}`, (error: unknown) => `no answer (${String(error)})`);
      parts.push(`node ${slot.name} /readyz: ${ready}`);
    }
    if (this.#store) {
      const ping = await within(this.#store.ping(), 5000);
      parts.push(`store: ${!ping ? 'no answer in 5 s (its one connection is held)' : ping.value ? 'answers' : 'refuses a query'}`);
    }
    if (this.chain) {
      const head = await within(this.chain.head().catch((error: unknown) => String(error)), 5000);
      parts.push(`chain: head ${head ? JSON.stringify(head.value) : 'no answer in 5 s'}, nodes' RPC ${this.chain.rpcDown ? 'down' : 'up'}`);
    }
    return parts.join('; ');
  }
}
